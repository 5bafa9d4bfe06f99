import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { decodeDebitFile, encodeDebitFile } from "../../src/domain/zengin-debit-file.js";
import { accountIdentity } from "../../src/domain/bank-account.js";
import { ResultCheck } from "../../src/domain/zengin-result-check.js";
import { updateConsignor } from "../../src/flows/merchants.js";
import { runZenginCycle } from "../../src/flows/zengin-cycle.js";
import { zenginExchangeOf } from "../../src/flows/zengin-exchange.js";
import { answerRequestFiles } from "../../src/ports/zengin-simulated-bank.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { api, startTestServer } from "../helpers/test-server.js";

const kana = fc.constantFrom("ﾔﾏﾀﾞ ﾀﾛｳ", "ｽｽﾞｷ ﾊﾅｺ", "ABC(ｶ", "ｶ)ﾌﾘｺﾐ-ﾃｽﾄ", "ﾊﾟﾋﾟﾌﾟﾍﾟﾎﾟ");
const record = fc.record({
  bankCode: fc.stringMatching(/^\d{4}$/),
  bankName: fc.constant(""),
  branchCode: fc.stringMatching(/^\d{3}$/),
  branchName: fc.constant(""),
  accountType: fc.constantFrom(1, 2, 4),
  accountNumber: fc.stringMatching(/^\d{7}$/),
  holder: kana,
  amount: fc.integer({ min: 1, max: 9_999_999_999 }),
  newCode: fc.constantFrom(0, 1, 2),
  customerNumber: fc.constant(""),
  resultCode: fc.constantFrom(0, 1, 2, 3, 4, 8, 9),
});

describe("Zengin files: properties", () => {
  it("a result decodes to what was written, its trailer equal to its records and results", () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 40 }), (drawn) => {
        const records = drawn.map((r, i) => ({ ...r, customerNumber: String(i + 1).padStart(20, "0") }));
        const consignor = {
          code: "1234567890",
          name: "ﾃｽﾄ",
          bankCode: "0001",
          bankName: "",
          branchCode: "001",
          branchName: "",
          accountType: 1,
          accountNumber: "1234567",
        };
        const request = { consignor, debitDate: "0105", records: records.map((r) => ({ ...r, resultCode: 0 })) };
        const result = { consignor, debitDate: "0105", records };
        const decoded = decodeDebitFile(encodeDebitFile(result, true), true);
        expect(decoded).toEqual({ ok: true, file: result });
        const check = new ResultCheck("91", records.length);
        for (const [i, answer] of result.records.entries())
          expect(
            check.record({ ...request.records[i], accountKey: accountIdentity(request.records[i]) }, answer),
          ).toBeUndefined();
        expect(check.finish()).toBeUndefined();
        const bytes = encodeDebitFile(result, true);
        const trailer = bytes.subarray((records.length + 1) * 122, (records.length + 1) * 122 + 120).toString("latin1");
        const sum = (list: typeof records) => list.reduce((total, r) => total + r.amount, 0);
        const done = records.filter((r) => r.resultCode === 0);
        const failed = records.filter((r) => r.resultCode !== 0);
        expect(trailer.slice(1, 55)).toBe(
          [records.length, sum(records), done.length, sum(done), failed.length, sum(failed)]
            .map((n, i) => String(n).padStart(i % 2 === 0 ? 6 : 12, "0"))
            .join(""),
        );
      }),
      { numRuns: 200 },
    );
  });

  it("request → simulated bank → result → import keeps every total", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            amount: fc.integer({ min: 1, max: 50_000 }),
            balance: fc.integer({ min: 0, max: 60_000 }),
            magic: fc.option(fc.constantFrom(1, 2, 3, 4, 8, 9), { freq: 4 }),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        async (debits) => {
          const dir = mkdtempSync(join(tmpdir(), "zengin-prop-"));
          const server = await startTestServer({
            clockStart: new Date("2026-11-24T01:00:00Z"),
            env: { BANK_CONNECTOR: "zengin", ZENGIN_DIR: dir, ZENGIN_SIMULATED_BANK: "off", WORKERS: "off" },
          });
          try {
            await updateConsignor(server.ctx, server.merchant.merchant_id, {
              code: "5234567890",
              name: "ﾌﾟﾛﾊﾟﾃｲ",
              bankCode: "0001",
              branchCode: "001",
              accountType: "1",
              accountNumber: "1234567",
            });
            const customers = [];
            for (const [i, debit] of debits.entries()) {
              const accountNumber = debit.magic ? `999999${debit.magic}` : String(i + 1).padStart(7, "0");
              const { customerId } = await seedActiveCustomer(server, { balance: debit.balance, accountNumber });
              const res = await api(server, "/v1/payments/off-session/async", {
                method: "POST",
                json: { customer_id: customerId, charge: { price: debit.amount, description: "p" } },
              });
              customers.push({ customerId, chargeId: (await res.json()).chargeId as string, ...debit });
            }
            await server.jobs.drain();
            const exchange = zenginExchangeOf(server.ctx, () => {});
            server.clock.advance(Date.parse("2026-11-25T06:00:00Z") - server.clock.now().getTime());
            await runZenginCycle(server.ctx, exchange);
            server.clock.advance(Date.parse("2026-11-26T08:00:00Z") - server.clock.now().getTime());
            await answerRequestFiles(server.ctx.tx, dir, server.clock.now());
            const report = await runZenginCycle(server.ctx, exchange);
            expect(report.quarantined).toEqual([]);
            const [resultName] = readdirSync(join(dir, "archive"));
            const result = decodeDebitFile(readFileSync(join(dir, "archive", resultName)), true);
            if (!result.ok) throw new Error(result.reason);

            let debited = 0;
            for (const customer of customers) {
              const charge = await server.ctx.tx.db
                .selectFrom("charges")
                .selectAll()
                .where("id", "=", customer.chargeId)
                .executeTakeFirstOrThrow();
              const account = await server.ctx.tx.db
                .selectFrom("bank_accounts")
                .select("balance")
                .where("customer_id", "=", customer.customerId)
                .executeTakeFirstOrThrow();
              const expectSuccess = !customer.magic && customer.balance >= customer.amount;
              expect(charge.status).toBe(expectSuccess ? ChargeStatus.SUCCESS : ChargeStatus.FAILURE);
              expect(Number(account.balance)).toBe(customer.balance - (expectSuccess ? customer.amount : 0));
              if (expectSuccess) debited += customer.amount;
            }
            const done = result.file.records.filter((r) => r.resultCode === 0);
            expect(done.reduce((sum, r) => sum + r.amount, 0)).toBe(debited);
            const file = await server.ctx.tx.db
              .selectFrom("zengin_files")
              .selectAll()
              .where("direction", "=", "out")
              .executeTakeFirstOrThrow();
            expect(file).toMatchObject({ state: "answered", record_count: customers.length });
            expect(Number(file.done_amount)).toBe(debited);
            expect(Number(file.done_amount) + Number(file.failed_amount)).toBe(
              customers.reduce((sum, c) => sum + c.amount, 0),
            );
          } finally {
            await server.stop();
            rmSync(dir, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 6 },
    );
  });
});
