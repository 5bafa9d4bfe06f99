import { describe, expect, it } from "vitest";
import { contractFor } from "../../src/domain/contract-scope.js";
import { openStorage } from "../../src/storage/database.js";
import { findContractByTransferCode, itemsOfFile, listContracts, scheduledGroups } from "../../src/storage/zengin.js";
import { sealedItemAccount } from "../../src/storage/zengin-rows.js";
import { dialects, freshDatabaseUrl } from "../helpers/test-server.js";

const before = "0024-zengin-items-sealed";
const at = "2026-11-25T06:00:00.000Z";

const item = (reference: string, state: string, fileId: string | null) => ({
  reference,
  merchant_id: "mer-1",
  date: "2026-11-26",
  state,
  file_id: fileId,
  customer_number: fileId ? "20261126000000000001" : null,
  amount: 1_500,
  new_code: 1,
  ...sealedItemAccount({
    bankCode: "0005",
    branchCode: "123",
    accountType: 1,
    accountNumber: "5551234",
    accountHolder: "ﾔﾏﾀﾞ ﾀﾛｳ",
  }),
  result_code: null,
  created_at: at,
  updated_at: at,
});

for (const dialect of dialects) {
  describe(`migration 0026 on ${dialect}`, () => {
    it("makes each merchant's consignor settings an agent contract covering every bank, and its items and files that contract's", async () => {
      const { url, cleanup } = freshDatabaseUrl(dialect);
      try {
        let storage = await openStorage(url, { migrateUpTo: before });
        await storage.db
          .insertInto("merchants" as never)
          .values({ id: "mer-1", name: "Shop", webhook_secret: "", created_at: at } as never)
          .execute();
        await storage.db
          .insertInto("zengin_consignors" as never)
          .values({
            merchant_id: "mer-1",
            code: "1234567890",
            name: "ﾃｽﾄ ｼﾖﾂﾌﾟ",
            bank_code: "0184",
            bank_name: "ﾐﾔｻﾞｷ",
            branch_code: "001",
            branch_name: "ﾎﾝﾃﾝ",
            account_type: 1,
            account_number: "1234567",
            debit_day: 27,
            updated_at: at,
          } as never)
          .execute();
        await storage.db
          .insertInto("zengin_debits")
          .values(item("trx-filed", "filed", "zf-1") as never)
          .execute();
        await storage.db
          .insertInto("zengin_debits")
          .values(item("trx-waiting", "scheduled", null) as never)
          .execute();
        await storage.close();

        storage = await openStorage(url);
        try {
          const [contract, ...others] = await listContracts(storage.db, "mer-1");
          expect(others).toEqual([]);
          expect(contract).toMatchObject({
            merchantId: "mer-1",
            code: "1234567890",
            scope: "agent",
            banks: [],
            // The transfer file's header keeps the code it carried before contracts had their own.
            transferCode: "1234567890",
            name: "ﾃｽﾄ ｼﾖﾂﾌﾟ",
            bankCode: "0184",
            bankName: "ﾐﾔｻﾞｷ",
            branchCode: "001",
            branchName: "ﾎﾝﾃﾝ",
            accountType: 1,
            accountNumber: "1234567",
            debitDay: 27,
            // Every debit answered in the result, as before contracts had a style (migration 0027).
            resultStyle: "all",
          });
          // Today's behaviour: every bank's accounts go into its file (ゆうちょ has a contract of its own).
          for (const bank of ["0001", "0005", "0184", "0397"])
            expect(contractFor([contract], bank)?.code).toBe("1234567890");
          expect(contractFor([contract], "9900")).toBeUndefined();
          expect((await findContractByTransferCode(storage.db, "1234567890"))?.merchantId).toBe("mer-1");
          const [filed] = await itemsOfFile(storage.db, "zengin_debits", "zf-1");
          expect(filed.contractCode).toBe("1234567890");
          expect(await scheduledGroups(storage.db, "zengin_debits")).toEqual([
            { merchantId: "mer-1", contractCode: "1234567890", date: "2026-11-26" },
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
