import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import {
  DunningAction,
  IntervalUnit,
  SubscriptionService,
  SubscriptionStatus,
} from "../../gen/payments/v1/subscription_service_pb.js";
import { customersForResolution } from "../../src/storage/dashboard-queries.js";
import { payersOf } from "../../src/storage/dashboard-search.js";
import { livePlansOfCustomers } from "../../src/storage/subscriptions.js";
import { seedActiveCustomer, seedConsignor } from "../helpers/fixtures.js";
import { fullScansOf, queriesOf } from "../helpers/query-plans.js";
import { dialects, startTestServer, type TestServer } from "../helpers/test-server.js";
import { liveHourly, zenginTuesday } from "../helpers/zengin-server.js";

/**
 * The recurring side's look-ups by lists of keys (docs/operations/benchmark.md#history-independence):
 * two months of a plan on the Zengin exchange with a 資金不足 answer and its re-debit (the cycle's
 * pages, the mandates' registration, the result's follow-up of each subscription), a subscription
 * import's check for live plans, a CSV batch's customers and the dashboard's payers. None may read
 * a whole table, sort all it found, or read every row of the merchant to find the few it named.
 */
for (const dialect of dialects) {
  describe(`subscriptions on the Zengin exchange, on ${dialect}`, () => {
    let server: TestServer;
    const quarantined: string[] = [];

    beforeAll(async () => {
      server = await startTestServer({
        dialect,
        clockStart: zenginTuesday,
        env: { BANK_CONNECTOR: "zengin", ZENGIN_SIMULATED_BANK: "on", WORKERS: "off" },
      });
      await seedConsignor(server, "6234567891");
    });
    afterAll(() => server?.stop());

    it("look rows up by the keys they are asked for", async () => {
      const client = server.client(SubscriptionService);
      const { plan } = await client.createPlan({
        name: "月謝",
        amount: 8000,
        intervalUnit: IntervalUnit.MONTH,
        intervalCount: 1,
        debitDay: 4,
        dunning: { action: DunningAction.RETRY, retryAfterDays: 5, maxAttempts: 2 },
      });
      const customers = [];
      for (const [i, balance] of [1_000_000, 1_000_000, 0].entries())
        customers.push(await seedActiveCustomer(server, { accountNumber: `004222${i}`, balance }));
      const subscriptionIds: string[] = [];
      for (const { customerId } of customers) {
        const { subscription } = await client.createSubscription({
          customerId,
          planId: plan!.planId,
          startPeriod: "2026-12",
        });
        subscriptionIds.push(subscription!.subscriptionId);
      }
      const merchantId = server.merchant.merchant_id;
      const customerIds = customers.map((customer) => customer.customerId);

      const queries = await queriesOf(async () => {
        // December's file, its answers (the third account 資金不足) and January's file, whose
        // accounts' mandates are registered by December's answers.
        await liveHourly(server, "2027-01-01T09:00:00Z", quarantined);
        expect(await livePlansOfCustomers(server.ctx.tx.db, merchantId, customerIds)).toHaveLength(3);
        expect(await customersForResolution(server.ctx.tx.db, merchantId, customerIds.slice(0, 2), [])).toHaveLength(2);
        expect(await payersOf(server.ctx.tx.db, merchantId, customerIds)).toHaveLength(3);
      });
      expect(quarantined).toEqual([]);
      // The third was answered 資金不足 and re-debited; January's periods are charged.
      const unpaid = (await client.getSubscription({ subscriptionId: subscriptionIds[2] })).subscription!;
      expect(unpaid.attempts.map((a) => a.status)).toContain(ChargeStatus.FAILURE);
      const paid = (await client.getSubscription({ subscriptionId: subscriptionIds[0] })).subscription!;
      expect([paid.status, paid.periods.map((p) => p.period)]).toEqual([
        SubscriptionStatus.ACTIVE,
        expect.arrayContaining(["2026-12", "2027-01"]),
      ]);

      const tables = [...queries.keys()].join("\n");
      for (const table of ["subscriptions", "subscription_attempts", "zengin_debits", "mandates", "customers"])
        expect(tables).toContain(`"${table}"`);
      // The exchange's own small tables (files, contracts, plans) are read whole by design, and
      // numbering a file's items sorts them once (by acceptance) when the file is recorded.
      const perRow = new Map(
        [...queries].filter(
          ([sql]) =>
            !/^\s*select .* from "(zengin_files|zengin_contracts|plans|plan_prices)"/.test(sql) &&
            !sql.includes("row_number()"),
        ),
      );
      expect(await fullScansOf(server, dialect, perRow)).toEqual([]);
    });
  });
}
