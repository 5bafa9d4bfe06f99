import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BankAccountType } from "../../gen/payments/v1/enums_pb.js";
import { openStorage } from "../../src/storage/database.js";
import { resealSecrets } from "../../src/storage/maintenance.js";
import { useSealingKey } from "../../src/storage/sealed.js";
import { mandateRegistered, itemsOfFile } from "../../src/storage/zengin.js";
import { dialects, freshDatabaseUrl } from "../helpers/test-server.js";

const before = "0023-csv-row-reason-ja";
const at = "2026-11-25T06:00:00.000Z";

/** A debit or transfer as 0015 stored it: the account in clear. */
const clearItem = (reference: string, accountNumber: string, holder: string) => ({
  reference,
  merchant_id: "mer-1",
  date: "2026-11-26",
  state: "answered",
  file_id: "zfl-1",
  customer_number: `2026112600000000000${reference.endsWith("1") ? 1 : 2}`,
  amount: 1_500,
  new_code: 1,
  bank_code: "0005",
  branch_code: "123",
  account_type: BankAccountType.CURRENT,
  account_number: accountNumber,
  holder,
  result_code: 0,
  created_at: at,
  updated_at: at,
});

for (const dialect of dialects) {
  describe(`migration 0024 on ${dialect}`, () => {
    it("seals the Zengin items' accounts, drops the clear columns, and `secrets reseal` covers them", async () => {
      const { url, cleanup } = freshDatabaseUrl(dialect);
      try {
        let storage = await openStorage(url, { migrateUpTo: before });
        await storage.db
          .insertInto("zengin_debits")
          .values(clearItem("trx-1", "5551234", "ﾔﾏﾀﾞ ﾀﾛｳ") as never)
          .execute();
        await storage.db
          .insertInto("zengin_transfers")
          .values(clearItem("rfd-2", "7654321", "ｽｽﾞｷ ﾊﾅｺ") as never)
          .execute();
        await storage.close();

        storage = await openStorage(url);
        try {
          const [debit] = await itemsOfFile(storage.db, "zengin_debits", "zfl-1");
          expect(debit).toMatchObject({ reference: "trx-1", amount: 1_500, newCode: 1 });
          expect(debit.account).toEqual({
            bankCode: "0005",
            branchCode: "123",
            accountType: BankAccountType.CURRENT,
            accountNumber: "5551234",
            accountHolder: "ﾔﾏﾀﾞ ﾀﾛｳ",
          });
          const [transfer] = await itemsOfFile(storage.db, "zengin_transfers", "zfl-1");
          expect(transfer.account).toMatchObject({ accountNumber: "7654321", accountHolder: "ｽｽﾞｷ ﾊﾅｺ" });
          // The debit answered 0 is still found by the account's keyed hash (the next debit is not 新規).
          const numbers = { bankCode: "0005", branchCode: "123", accountNumber: "5551234" };
          expect(await mandateRegistered(storage.db, "mer-1", numbers)).toBe(true);
          expect(await mandateRegistered(storage.db, "mer-1", { ...numbers, accountNumber: "5551235" })).toBe(false);

          const stored = async () =>
            JSON.stringify([
              await storage.db.selectFrom("zengin_debits").selectAll().execute(),
              await storage.db.selectFrom("zengin_transfers").selectAll().execute(),
            ]);
          const rows = await stored();
          for (const clear of ["5551234", "7654321", "ﾔﾏﾀﾞ", "ｽｽﾞｷ", "bank_code", "holder"])
            expect(rows).not.toContain(clear);
          expect(rows).toContain("sealed:v1:");

          // A key rotation: resealed and rehashed under the new key, still read and found.
          try {
            useSealingKey("rotated-key", [""]);
            await resealSecrets(storage.db);
            useSealingKey("rotated-key");
            expect(await stored()).not.toBe(rows);
            const [again] = await itemsOfFile(storage.db, "zengin_debits", "zfl-1");
            expect(again.account.accountNumber).toBe("5551234");
            expect(await mandateRegistered(storage.db, "mer-1", numbers)).toBe(true);
          } finally {
            useSealingKey(undefined);
          }
        } finally {
          await storage.close();
        }
        if (dialect === "sqlite") {
          // Nor in the file: the pages the clear columns left are zeroed (secure_delete), not free-listed.
          const file = readFileSync(url.slice("file:".length)).toString("utf8");
          expect(file).toContain("zfl-1");
          for (const clear of ["5551234", "7654321", "ﾔﾏﾀﾞ", "ｽｽﾞｷ"]) expect(file).not.toContain(clear);
        }
      } finally {
        await cleanup();
      }
    });
  });
}
