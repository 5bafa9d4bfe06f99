import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BankAccountType, ContractStatus } from "../../gen/payments/v1/enums_pb.js";
import { findCurrentBankAccount, findPendingBankAccount, ledgerOfAccount } from "../../src/storage/bank-accounts.js";
import { wrongEntries } from "../../src/storage/bank-authentication.js";
import { openStorage } from "../../src/storage/database.js";
import { chargeRow } from "../helpers/charges.js";
import { dialects, freshDatabaseUrl } from "../helpers/test-server.js";

const before = "0015-zengin";
const at = "2026-03-10T01:00:00.000Z";

for (const dialect of dialects) {
  describe(`migrations 0016 and 0017 on ${dialect}`, () => {
    it("make the customer's account its first approved account, named by its charges, contract and ledger, and seal its details", async () => {
      const { url, cleanup } = freshDatabaseUrl(dialect);
      try {
        let storage = await openStorage(url, { migrateUpTo: before });
        // As the tables were: one account per customer, its details (and a link's) in clear.
        await storage.db
          .insertInto("merchants")
          .values({ id: "mer-1", name: "Shop", webhook_secret: "", created_at: at } as never)
          .execute();
        await storage.db
          .insertInto("customers")
          .values({
            id: "cus-before",
            merchant_id: "mer-1",
            email: "before@example.jp",
            email_normalized: "before@example.jp",
            kyc_status: 0,
            payment_status: 0,
            created_at: at,
            updated_at: at,
          } as never)
          .execute();
        await storage.db
          .insertInto("bank_accounts")
          .values({
            customer_id: "cus-before",
            merchant_id: "mer-1",
            bank_code: "9903",
            branch_code: "001",
            account_number: "5551234",
            account_holder: "ﾔﾏﾀﾞ ﾀﾛｳ",
            balance: 99_000,
            created_at: at,
          } as never)
          .execute();
        await storage.db
          .insertInto("contracts")
          .values({
            id: "con-before",
            merchant_id: "mer-1",
            customer_id: "cus-before",
            status: ContractStatus.ACTIVATED,
            metadata_json: "{}",
            created_at: at,
            updated_at: at,
          } as never)
          .execute();
        const {
          bank_account_id: _,
          discount: _discount,
          ...charge
        } = chargeRow(
          { merchantId: "mer-1", customerId: "cus-before", contractId: "con-before", amount: 1_000 },
          new Date(at),
        );
        await storage.db
          .insertInto("charges")
          .values(charge as never)
          .execute();
        await storage.db
          .insertInto("bank_ledger")
          .values({
            customer_id: "cus-before",
            reference: charge.id,
            amount: -1_000,
            balance_after: 99_000,
            at,
          } as never)
          .execute();
        await storage.db
          .insertInto("link_bank_accounts")
          .values({
            link_id: "chg-pending",
            bank_code: "0005",
            branch_code: "210",
            account_number: "7654321",
            account_holder: "ｽｽﾞｷ ﾊﾅｺ",
            linked_at: at,
          } as never)
          .execute();
        await storage.db
          .insertInto("bank_authentication_failures")
          .values({ account_key: "9901-001-1234567", day: "2026-03-10", failures: 2 })
          .execute();
        await storage.close();

        storage = await openStorage(url);
        try {
          const account = await findCurrentBankAccount(storage.db, "mer-1", "cus-before");
          expect(account?.id).toMatch(/^bac-/);
          expect(account).toMatchObject({ balance: 99_000, customerId: "cus-before" });
          expect(account?.details).toEqual({
            bankCode: "9903",
            branchCode: "001",
            accountType: BankAccountType.ORDINARY,
            accountNumber: "5551234",
            accountHolder: "ﾔﾏﾀﾞ ﾀﾛｳ",
          });
          const contract = await storage.db.selectFrom("contracts").select("bank_account_id").executeTakeFirstOrThrow();
          const charged = await storage.db.selectFrom("charges").select("bank_account_id").executeTakeFirstOrThrow();
          expect([contract.bank_account_id, charged.bank_account_id]).toEqual([account!.id, account!.id]);
          expect((await ledgerOfAccount(storage.db, account!.id)).map((row) => row.reference)).toEqual([charge.id]);
          expect(await findPendingBankAccount(storage.db, "chg-pending")).toMatchObject({
            bankCode: "0005",
            accountNumber: "7654321",
            accountHolder: "ｽｽﾞｷ ﾊﾅｺ",
          });
          expect(await wrongEntries(storage.db, "9901-001-1234567", "2026-03-10")).toBe(2);

          // Nothing of the details is left in clear in those tables.
          const rows = JSON.stringify([
            await storage.db.selectFrom("bank_accounts").selectAll().execute(),
            await storage.db.selectFrom("link_bank_accounts").selectAll().execute(),
            await storage.db.selectFrom("bank_authentication_failures").selectAll().execute(),
          ]);
          for (const clear of ["5551234", "7654321", "1234567", "ﾔﾏﾀﾞ", "ｽｽﾞｷ"]) expect(rows).not.toContain(clear);
          expect(rows).toContain("sealed:v1:");
        } finally {
          await storage.close();
        }
        if (dialect === "sqlite") {
          // Nor in the file: the pages the clear columns left are zeroed (secure_delete), not free-listed.
          const file = readFileSync(url.slice("file:".length)).toString("utf8");
          expect(file).toContain("before@example.jp");
          for (const clear of ["5551234", "7654321", "ﾔﾏﾀﾞ", "ｽｽﾞｷ"]) expect(file).not.toContain(clear);
        }
      } finally {
        await cleanup();
      }
    });
  });
}
