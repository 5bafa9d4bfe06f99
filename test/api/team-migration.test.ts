import { describe, expect, it } from "vitest";
import { openStorage } from "../../src/storage/database.js";
import { dialects, freshDatabaseUrl } from "../helpers/test-server.js";

// Migration 0020 (docs/guide/dashboard.md#roles): a merchant's users from before roles become its owners.

const before = "0015-zengin";

for (const dialect of dialects) {
  describe(`migration 0020 on ${dialect}`, () => {
    it("makes every existing dashboard user an owner, with nothing to set up and not removed", async () => {
      const { url, cleanup } = freshDatabaseUrl(dialect);
      try {
        let storage = await openStorage(url, { migrateUpTo: before });
        const now = "2026-03-01T00:00:00.000Z";
        await storage.db
          .insertInto("merchants")
          .values({ id: "mer-old", name: "Old Shop", webhook_url: "", webhook_secret: "s", created_at: now } as never)
          .execute();
        await storage.db
          .insertInto("dashboard_users")
          .values({
            id: "usr-old",
            merchant_id: "mer-old",
            email: "old@example.jp",
            email_normalized: "old@example.jp",
            password_hash: "scrypt$…",
            created_at: now,
            updated_at: now,
          } as never)
          .execute();
        await storage.close();
        storage = await openStorage(url);
        const user = await storage.db
          .selectFrom("dashboard_users")
          .select(["role", "totp_setup_required", "removed_at"])
          .where("id", "=", "usr-old")
          .executeTakeFirstOrThrow();
        expect(user).toEqual({ role: "owner", totp_setup_required: 0, removed_at: null });
        await storage.close();
      } finally {
        await cleanup();
      }
    });
  });
}
