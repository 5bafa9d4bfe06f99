import { describe, expect, it } from "vitest";
import { openStorage } from "../../src/storage/database.js";
import { listContracts } from "../../src/storage/zengin.js";
import { dialects, freshDatabaseUrl } from "../helpers/test-server.js";

const before = "0026-zengin-contracts";
const at = "2026-11-25T06:00:00.000Z";

for (const dialect of dialects) {
  describe(`migration 0027 on ${dialect}`, () => {
    it("gives every existing contract the result style all (every debit answered), as it was", async () => {
      const { url, cleanup } = freshDatabaseUrl(dialect);
      try {
        let storage = await openStorage(url, { migrateUpTo: before });
        await storage.db
          .insertInto("merchants" as never)
          .values({ id: "mer-1", name: "Shop", webhook_secret: "", created_at: at } as never)
          .execute();
        await storage.db
          .insertInto("zengin_contracts" as never)
          .values({
            code: "1234567890",
            merchant_id: "mer-1",
            scope: "bank",
            banks: "",
            transfer_code: "1234567891",
            name: "ﾃｽﾄ ｼﾖﾂﾌﾟ",
            bank_code: "0184",
            bank_name: "ﾐﾔｻﾞｷ",
            branch_code: "001",
            branch_name: "ﾎﾝﾃﾝ",
            account_type: 1,
            account_number: "1234567",
            debit_day: 0,
            name_characters: "",
            created_at: at,
            updated_at: at,
          } as never)
          .execute();
        await storage.close();

        storage = await openStorage(url);
        try {
          expect(await listContracts(storage.db, "mer-1")).toMatchObject([
            { code: "1234567890", scope: "bank", transferCode: "1234567891", resultStyle: "all" },
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
