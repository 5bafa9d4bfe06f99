import pino from "pino";
import { loadConfig } from "../../src/config.js";
import { createMerchant, type CreatedMerchant } from "../../src/flows/merchants.js";
import { ManualClock } from "../../src/ports/clock.js";
import { startService, type RunningService } from "../../src/composition-root.js";

/**
 * Writes a merchant, and whatever `seed` adds, into a database before any server process runs on
 * it (the suites that spawn the server: crash loop, fuzzing).
 */
export async function provisionDatabase<T>(
  databaseUrl: string,
  name: string,
  seed: (setup: { merchant: CreatedMerchant; clock: ManualClock; ctx: RunningService["ctx"] }) => Promise<T>,
): Promise<{ merchant: CreatedMerchant } & T> {
  const clock = new ManualClock();
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    DATABASE_URL: databaseUrl,
    WORKERS: "off",
    LOG_LEVEL: "silent",
  });
  const service = await startService(config, { clock, logger: pino({ level: "silent" }) });
  try {
    const merchant = await createMerchant(service.ctx, { name });
    return { merchant, ...(await seed({ merchant, clock, ctx: service.ctx })) };
  } finally {
    await service.close();
  }
}
