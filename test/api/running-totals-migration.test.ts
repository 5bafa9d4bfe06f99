import { describe, expect, it } from "vitest";
import { RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import { reversalReference } from "../../src/domain/ledger-reference.js";
import { findCurrentBankAccount } from "../../src/storage/bank-accounts.js";
import { openStorage } from "../../src/storage/database.js";
import { refundToRow } from "../../src/storage/records.js";
import { chargeRow } from "../helpers/charges.js";
import { dialects, freshDatabaseUrl } from "../helpers/test-server.js";

const before = "0013-mandates";

for (const dialect of dialects) {
  describe(`migration 0014 on ${dialect}`, () => {
    it("backfills each account's debits of the day and month of its latest debit (reversed ones left out), and numbers each charge's refunds", async () => {
      const { url, cleanup } = freshDatabaseUrl(dialect);
      try {
        let storage = await openStorage(url, { migrateUpTo: before });
        const customerId = "cus-before";
        await storage.db
          .insertInto("bank_accounts")
          .values({
            customer_id: customerId,
            merchant_id: "mer-1",
            bank_code: "9903",
            branch_code: "001",
            account_number: "1234567",
            account_holder: "ヤマダ タロウ",
            balance: 100_000,
            quota: 0,
            under_maintenance: 0,
            maintenance_until: null,
            reject: 0,
            latency_ms: 0,
            created_at: "2026-02-01T00:00:00.000Z",
          } as never)
          .execute();
        const ledger: Array<[string, number]> = [
          ["2026-02-27T03:00:00.000Z", -1000], // February (JST): not this month
          ["2026-03-05T03:00:00.000Z", -2000],
          ["2026-03-10T01:00:00.000Z", -4000], // 10:00 JST on 10 March
          ["2026-03-10T02:00:00.000Z", 300], // a refund credited back: not a debit
          ["2026-03-10T03:00:00.000Z", -500], // the latest debit, 12:00 JST on 10 March
        ];
        // A debit cancelled the same day and its reversal count neither.
        const reversed: Array<[string, string, number]> = [
          ["trx-cancelled", "2026-03-10T01:30:00.000Z", -700],
          [reversalReference("trx-cancelled"), "2026-03-10T01:40:00.000Z", 700],
        ];
        await storage.db
          .insertInto("bank_ledger")
          .values([
            ...ledger.map(([at, amount], i) => ({
              customer_id: customerId,
              reference: `ref-${i}`,
              amount,
              balance_after: 0,
              at,
            })),
            ...reversed.map(([reference, at, amount]) => ({
              customer_id: customerId,
              reference,
              amount,
              balance_after: 0,
              at,
            })),
            // As the table was then: no account_id before 0016.
          ] as never)
          .execute();

        const {
          bank_account_id: _,
          discount: _discount,
          ...charge
        } = chargeRow({ merchantId: "mer-1", amount: 10_000 }, new Date("2026-03-10T00:00:00Z"));
        await storage.db
          .insertInto("charges")
          .values(charge as never)
          .execute();
        const refund = (id: string, at: string) =>
          refundToRow({
            id,
            merchantId: "mer-1",
            chargeId: charge.id,
            amount: 1,
            status: RefundStatus.SUCCEEDED,
            cancellation: false,
            reason: "",
            metadata: {},
            errorMessage: "",
            settleAfter: new Date(at),
            createdAt: new Date(at),
            updatedAt: new Date(at),
          });
        await storage.db
          .insertInto("refunds")
          .values([
            refund("rfd-b", "2026-03-10T02:00:00.000Z"),
            refund("rfd-z", "2026-03-10T01:00:00.000Z"),
            refund("rfd-a", "2026-03-10T02:00:00.000Z"),
          ])
          .execute();
        await storage.close();

        storage = await openStorage(url);
        try {
          const account = await findCurrentBankAccount(storage.db, "mer-1", customerId);
          expect(account?.debitTotals).toEqual({
            dayStart: "2026-03-09T15:00:00.000Z",
            today: 4500,
            monthStart: "2026-02-28T15:00:00.000Z",
            thisMonth: 6500,
          });
          const numbered = await storage.db
            .selectFrom("refunds")
            .select(["id", "seq"])
            .where("charge_id", "=", charge.id)
            .orderBy("seq")
            .execute();
          // By created_at, ties by id.
          expect(numbered).toEqual([
            { id: "rfd-z", seq: 1 },
            { id: "rfd-a", seq: 2 },
            { id: "rfd-b", seq: 3 },
          ]);
        } finally {
          await storage.close();
        }
      } finally {
        await cleanup();
      }
    });
  });
}
