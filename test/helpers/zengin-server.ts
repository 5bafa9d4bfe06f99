import { seedConsignor } from "./fixtures.js";
import { startTestServer, type TestServer } from "./test-server.js";

/** Tuesday 2026-11-24 10:00 JST: debits accepted now are made on Thursday 26th, their file due at 15:00 JST on the 25th. */
export const zenginTuesday = new Date("2026-11-24T01:00:00Z");

/**
 * A test server on the Zengin file exchange (workers off, the server's own ZENGIN_DIR, the
 * simulated bank on or off; its folder is `server.ctx.config.zengin.dir`), its merchant's consignor
 * set: files are named Z91_<consignorCode>_….
 */
export async function startZenginServer(options: {
  consignorCode: string;
  simulatedBank: boolean;
  clockStart?: Date;
}): Promise<TestServer> {
  const server = await startTestServer({
    clockStart: options.clockStart ?? zenginTuesday,
    env: { BANK_CONNECTOR: "zengin", ZENGIN_SIMULATED_BANK: options.simulatedBank ? "on" : "off", WORKERS: "off" },
  });
  await seedConsignor(server, options.consignorCode);
  return server;
}
