import { afterAll, beforeAll, describe, expect, it } from "vitest";
import SqliteDatabase from "better-sqlite3";
import pg from "pg";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { debitedSoFar } from "../../src/domain/bank-profile.js";
import { debitTotalsOf, findBankAccountOfCustomer } from "../../src/storage/bank-accounts.js";
import { postgresTarget, queryLog } from "../../src/storage/database.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { createPayment, freshEmail } from "../helpers/on-session.js";
import { dialects, startTestServer, type Dialect, type TestServer } from "../helpers/test-server.js";

// 2026-03-10 14:00 JST, a Tuesday.
const clockStart = new Date("2026-03-10T05:00:00Z");

/** The plan lines of a query that read a whole table (or a whole index) instead of searching it, or sort what it found. */
type Explain = (sql: string, parameters: readonly unknown[]) => Promise<string[]>;

async function explainer(server: TestServer, dialect: Dialect): Promise<{ explain: Explain; close(): Promise<void> }> {
  if (dialect === "sqlite") {
    const sqlite = new SqliteDatabase(server.databaseUrl.replace(/^file:/, ""), { readonly: true });
    return {
      explain: async (sql, parameters) =>
        (sqlite.prepare(`explain query plan ${sql}`).all(...parameters) as { detail: string }[])
          .map((row) => row.detail)
          // SEARCH walks an index to the rows asked for; SCAN reads them all, and a temporary
          // B-tree sorts every row that matched before the first can be returned.
          .filter((detail) => detail.startsWith("SCAN ") || detail.startsWith("USE TEMP B-TREE")),
      close: async () => void sqlite.close(),
    };
  }
  const { connectionString, schema } = postgresTarget(server.databaseUrl);
  const client = new pg.Client({ connectionString, options: `-c search_path=${schema}` });
  await client.connect();
  // The test's tables are small, so the planner would rightly prefer reading them whole: forbid
  // that, and a sequential scan is left only where no index can answer the query.
  await client.query("set enable_seqscan = off");
  return {
    explain: async (sql, parameters) =>
      (await client.query(`explain ${sql}`, parameters as unknown[])).rows
        .map((row: { "QUERY PLAN": string }) => row["QUERY PLAN"].trim())
        .filter((line: string) => line.includes("Seq Scan")),
    close: () => client.end(),
  };
}

/** Runs `work` and returns each distinct query it ran (select, update, delete) with its last parameters. */
async function queriesOf(work: () => Promise<void>): Promise<Map<string, readonly unknown[]>> {
  const seen = new Map<string, readonly unknown[]>();
  queryLog.record = (sql, parameters) => {
    if (/^\s*(select|update|delete|with)\b/i.test(sql)) seen.set(sql, parameters);
  };
  try {
    await work();
  } finally {
    queryLog.record = undefined;
  }
  return seen;
}

for (const dialect of dialects) {
  describe(`hot paths on ${dialect}`, () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer({ dialect, clockStart, env: { WORKERS: "off" } });
    });
    afterAll(() => server?.stop());

    it("run no query whose plan reads a whole table: reads, every list, a debit, a refund, the async engine and on-session payments", async () => {
      const client = server.client(PaymentService);
      const { customerId } = await seedActiveCustomer(server);
      const first = await client.createOffSessionPayment({ customerId, charge: { price: 1200 } });
      const chargeId = first.charge!.chargeId;
      const returning = freshEmail("returning");
      await createPayment(server, { buyer: { email: returning } });
      const queries = await queriesOf(async () => {
        const { charge } = await client.createOffSessionPayment({ customerId, charge: { price: 1500 } });
        expect(charge?.chargeStatus).toBe(ChargeStatus.SUCCESS);
        await client.refund({ chargeId, amount: 100 });
        await client.refund({ chargeId, amount: 100 });
        await client.getCharge({ charge: chargeId });
        const refunds = await client.listRefunds({ chargeId, pageSize: 1 });
        await client.listRefunds({ chargeId, pageSize: 1, pageToken: refunds.nextPageToken });
        await client.getCustomer({ customer: customerId });
        const customers = await client.listCustomers({ pageSize: 1 });
        await client.listCustomers({ pageSize: 1, pageToken: customers.nextPageToken });
        const events = await client.listEvents({ pageSize: 1 });
        expect(events.nextPageToken).not.toBe("");
        await client.listEvents({ pageSize: 1, pageToken: events.nextPageToken });
        await client.listEvents({ chargeId, pageSize: 10 });
        await client.createOffSessionPaymentAsync({ customerId, charge: { price: 700 } });
        await server.jobs.drain();
        // A returning customer's on-session payments (the e-mail reuse rule).
        await createPayment(server, { buyer: { email: returning } });
        await createPayment(server, { buyer: { email: returning } });
      });
      // The recording saw the hot paths' queries: charges, refunds, customers, events, the bank's account.
      const tables = [...queries.keys()].join("\n");
      for (const table of [
        "charges",
        "refunds",
        "customers",
        "contracts",
        "events",
        "bank_accounts",
        "bank_ledger",
        "jobs",
      ])
        expect(tables).toContain(`"${table}"`);

      const { explain, close } = await explainer(server, dialect);
      try {
        const fullScans: string[] = [];
        for (const [sql, parameters] of queries) {
          for (const line of await explain(sql, parameters)) fullScans.push(`${line}  ←  ${sql}`);
        }
        expect(fullScans).toEqual([]);
      } finally {
        await close();
      }
    });

    it("keeps an account's debits of the day and month on its row as they are booked", async () => {
      const client = server.client(PaymentService);
      const { customerId } = await seedActiveCustomer(server);
      await client.createOffSessionPayment({ customerId, charge: { price: 1000 } });
      server.clock.advance(24 * 3_600_000);
      await client.createOffSessionPayment({ customerId, charge: { price: 2000 } });
      await client.createOffSessionPayment({ customerId, charge: { price: 4000 } });
      const at = server.clock.now();
      const kept = debitTotalsOf((await findBankAccountOfCustomer(server.ctx.tx.db, customerId))!);
      expect(debitedSoFar(kept, at)).toEqual({ today: 6000, thisMonth: 7000 });
    });
  });
}
