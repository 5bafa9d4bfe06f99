import { type ConsignorInput, updateConsignor } from "../../src/flows/zengin-contracts.js";
import { runZenginCycle } from "../../src/flows/zengin-cycle.js";
import { zenginExchangeOf } from "../../src/flows/zengin-exchange.js";
import { seedActiveCustomer, seedConsignor } from "./fixtures.js";
import { api, startTestServer, type TestServer } from "./test-server.js";

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

/** Moves the server's clock to an instant and runs what is due then (the zengin-cycle job among them). */
export async function advanceAndDrain(server: TestServer, iso: string): Promise<void> {
  server.clock.advance(Date.parse(iso) - server.clock.now().getTime());
  await server.jobs.drain();
}

/**
 * Lives to `iso` an hour at a time: the clock moves, the due jobs run, then the file cycle (each
 * cutoff met on time, each result file read when the simulated bank writes it). A quarantined
 * file's name goes to `quarantined`.
 */
export async function liveHourly(server: TestServer, iso: string, quarantined: string[]): Promise<void> {
  const exchange = zenginExchangeOf(server.ctx, (file) => quarantined.push(file.name));
  while (server.clock.now() < new Date(iso)) {
    server.clock.advance(3_600_000);
    await server.jobs.drain();
    await runZenginCycle(server.ctx, exchange);
  }
}

/** The event types written for a charge, oldest first. */
export async function eventTypesOf(server: TestServer, chargeId: string): Promise<string[]> {
  const rows = await server.ctx.tx.db
    .selectFrom("events")
    .select("event_type_name")
    .where("charge_id", "=", chargeId)
    .orderBy("seq")
    .execute();
  return rows.map((row) => row.event_type_name);
}

/**
 * A new merchant with one agent contract (`code`, and what `contract` adds) and an accepted async
 * charge of each price, each from a customer of its own; the jobs are left to the caller.
 */
export async function merchantWithCharges(
  server: TestServer,
  options: { name: string; code: string; prices: number[]; contract?: Partial<ConsignorInput> },
): Promise<{ merchantId: string; code: string; charges: string[] }> {
  const merchant = await server.newMerchant(`Shop ${options.name}`);
  await updateConsignor(server.ctx, merchant.merchant_id, {
    code: options.code,
    name: "ﾃｽﾄ ｼﾖﾂﾌﾟ",
    bankCode: "0001",
    branchCode: "001",
    accountType: "1",
    accountNumber: "1234567",
    ...options.contract,
  });
  const charges: string[] = [];
  for (const price of options.prices) {
    const customer = await seedActiveCustomer(server, { merchantId: merchant.merchant_id, balance: 100_000 });
    const res = await api(server, "/v1/payments/off-session/async", {
      method: "POST",
      apiKey: merchant.api_key,
      json: { customer_id: customer.customerId, charge: { price, description: options.name } },
    });
    if (res.status !== 200) throw new Error(`charge of ${price}: HTTP ${res.status} ${await res.text()}`);
    charges.push((await res.json()).chargeId);
  }
  return { merchantId: merchant.merchant_id, code: options.code, charges };
}
