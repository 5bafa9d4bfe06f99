import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { debitedSoFar } from "../../src/domain/bank-profile.js";
import { findCurrentBankAccount } from "../../src/storage/bank-accounts.js";
import { decodeDebitFile, encodeDebitFile } from "../../src/domain/zengin-debit-file.js";
import { updateConsignor } from "../../src/flows/merchants.js";
import { runZenginCycle } from "../../src/flows/zengin-cycle.js";
import { zenginExchangeOf } from "../../src/flows/zengin-exchange.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { signInCustomer } from "../helpers/customer-app.js";
import { createPayment, freshEmail } from "../helpers/on-session.js";
import { fullScansOf, queriesOf } from "../helpers/query-plans.js";
import { dialects, startTestServer, type TestServer } from "../helpers/test-server.js";

// 2026-03-10 14:00 JST, a Tuesday.
const clockStart = new Date("2026-03-10T05:00:00Z");

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

      expect(await fullScansOf(server, dialect, queries)).toEqual([]);
    });

    it("the customer app's reads: a customer of two merchants, their list, paging, filters, a receipt, a stop request", async () => {
      const email = freshEmail("plans");
      const other = await server.newMerchant("Plans Shop");
      const first = await seedActiveCustomer(server, { email });
      server.clock.advance(60_000);
      const second = await seedActiveCustomer(server, { email, merchantId: other.merchant_id });
      const paid = await server.client(PaymentService).createOffSessionPayment({
        customerId: first.customerId,
        charge: { price: 1000 },
      });
      await server.client(PaymentService).refund({ chargeId: paid.charge!.chargeId, amount: 100 });
      await server
        .client(PaymentService, other.api_key)
        .createOffSessionPayment({ customerId: second.customerId, charge: { price: 2000 } });
      const app = await signInCustomer(server, email);
      const queries = await queriesOf(async () => {
        await app.client.getCustomerSession({});
        await app.client.listCustomerMerchants({});
        const page = await app.client.listCustomerTransactions({ pageSize: 1 });
        expect(page.nextPageToken).not.toBe("");
        await app.client.listCustomerTransactions({ pageSize: 1, pageToken: page.nextPageToken, month: "2026-03" });
        await app.client.listCustomerTransactions({ merchantId: other.merchant_id });
        await app.client.getReceipt({ chargeId: paid.charge!.chargeId });
        await app.client.listUpcomingDebits({});
        await app.client.requestStop({ contractId: second.contractId });
      });
      const tables = [...queries.keys()].join("\n");
      for (const table of [
        "customer_app_sessions",
        "customers",
        "charges",
        "refunds",
        "contracts",
        "mandates",
        "stop_requests",
        "zengin_debits",
      ])
        expect(tables).toContain(`"${table}"`);
      expect(await fullScansOf(server, dialect, queries)).toEqual([]);
    });

    it("keeps an account's debits of the day and month on its row as they are booked", async () => {
      const client = server.client(PaymentService);
      const { customerId } = await seedActiveCustomer(server);
      await client.createOffSessionPayment({ customerId, charge: { price: 1000 } });
      server.clock.advance(24 * 3_600_000);
      await client.createOffSessionPayment({ customerId, charge: { price: 2000 } });
      await client.createOffSessionPayment({ customerId, charge: { price: 4000 } });
      const at = server.clock.now();
      const kept = (await findCurrentBankAccount(server.ctx.tx.db, server.merchant.merchant_id, customerId))!
        .debitTotals;
      expect(debitedSoFar(kept, at)).toEqual({ today: 6000, thisMonth: 7000 });
    });
  });

  describe(`the Zengin file exchange on ${dialect}`, () => {
    let zengin: TestServer;
    let dir: string;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "zengin-plans-"));
      // Tuesday 2026-03-10 14:00 JST: the debit date is Thursday 12th, its file due on the 11th at 15:00 JST.
      zengin = await startTestServer({
        dialect,
        clockStart,
        env: { BANK_CONNECTOR: "zengin", ZENGIN_DIR: dir, ZENGIN_SIMULATED_BANK: "off", WORKERS: "off" },
      });
      await updateConsignor(zengin.ctx, zengin.merchant.merchant_id, {
        code: "8234567891",
        name: "ﾌﾟﾗﾝ",
        bankCode: "0005",
        branchCode: "001",
        accountType: "1",
        accountNumber: "7654321",
        // Its results list only the failed debits: the rest are read from the request's items.
        resultStyle: "failures_only",
      });
    });
    afterAll(async () => {
      await zengin?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it("writes a request file and imports its result (failures only) by index: no query reads a whole table of debits, charges or events", async () => {
      for (let i = 0; i < 3; i++) {
        const { customerId } = await seedActiveCustomer(zengin, { accountNumber: `000000${i + 1}` });
        await zengin.client(PaymentService).createOffSessionPaymentAsync({ customerId, charge: { price: 1000 + i } });
      }
      await zengin.jobs.drain();
      const exchange = zenginExchangeOf(zengin.ctx, () => {});
      const queries = await queriesOf(async () => {
        zengin.clock.advance(Date.parse("2026-03-11T06:00:00Z") - zengin.clock.now().getTime());
        const [name] = (await runZenginCycle(zengin.ctx, exchange)).written;
        const sent = decodeDebitFile(readFileSync(join(dir, "outgoing", name)), false);
        if (!sent.ok) throw new Error(sent.reason);
        const records = sent.file.records.map((record) => ({ ...record, resultCode: record.amount === 1001 ? 1 : 0 }));
        const result = encodeDebitFile({ ...sent.file, records }, true, "failures_only");
        writeFileSync(join(dir, "incoming", `R${name.slice(1)}`), result);
        expect((await runZenginCycle(zengin.ctx, exchange)).imported).toHaveLength(1);
      });
      // The tables with a row per debit; the exchange's own file list is small and read whole, and
      // numbering a file's items sorts them once (by acceptance) when the file is recorded.
      const perDebit = new Map(
        [...queries].filter(
          ([sql]) => /"(zengin_debits|charges|async_requests|events)"/.test(sql) && !sql.includes("row_number()"),
        ),
      );
      const tables = [...perDebit.keys()].join("\n");
      for (const table of ["zengin_debits", "charges"]) expect(tables).toContain(`"${table}"`);
      expect(await fullScansOf(zengin, dialect, perDebit)).toEqual([]);
    });
  });
}
