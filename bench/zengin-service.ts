/**
 * The service as the Zengin benches run it (bench/zengin-files.ts, bench/subscription-cycle.ts,
 * bench/debit-day.ts): sandbox mode, BANK_CONNECTOR=zengin with its folders under `dir` and no
 * simulated bank (the bench answers the files), workers off (the bench calls the flows; a bench
 * that needs them starts them), and a manual clock standing at Tuesday 2026-11-24 10:00 JST.
 */
import { join } from "node:path";
import pino from "pino";
import { startService } from "../src/composition-root.js";
import { loadConfig } from "../src/config.js";
import { ManualClock } from "../src/ports/clock.js";

export async function startZenginService(dir: string, databaseUrl = `file:${join(dir, "bench.db")}`) {
  const config = loadConfig({
    ...process.env,
    MODE: "sandbox",
    PORT: "0",
    HOST: "127.0.0.1",
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: "silent",
    WORKERS: "off",
    BANK_CONNECTOR: "zengin",
    ZENGIN_DIR: join(dir, "zengin"),
    ZENGIN_SIMULATED_BANK: "off",
  });
  const clock = new ManualClock(new Date("2026-11-24T01:00:00Z"));
  const service = await startService(config, { clock, logger: pino({ level: "silent" }) });
  return { service, clock };
}
