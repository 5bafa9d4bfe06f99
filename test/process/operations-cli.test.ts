import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteDatabase } from "../../src/storage/sqlite-driver.js";
import { unseal, useSealingKey } from "../../src/storage/sealed.js";
import { runCli, spawnServer } from "../helpers/process-server.js";

const dir = mkdtempSync(join(tmpdir(), "furikomi-ops-"));
afterAll(() => {
  useSealingKey(undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe("operations from the command line", () => {
  it("backs the SQLite file up online, while the server writes", async () => {
    const databaseUrl = `file:${join(dir, "live.db")}`;
    const merchant = await runCli<{ merchant_id: string; api_key: string }>(
      ["merchants", "create", "--name", "Backed Up"],
      { DATABASE_URL: databaseUrl },
    );
    const server = await spawnServer({ DATABASE_URL: databaseUrl });
    try {
      const write = (i: number) =>
        fetch(`${server.url}/v1/payments/on-session`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${merchant.api_key}` },
          body: JSON.stringify({
            buyer: { email: `backup${i}@example.jp` },
            charge: { price: 100, description: "d" },
            redirect: { success_url: "https://shop.example.jp/ok", failure_url: "https://shop.example.jp/ng" },
          }),
        }).then((res) => expect(res.status).toBe(200));
      const writes = Promise.all(Array.from({ length: 20 }, (_, i) => write(i)));
      const backup = await runCli<{ pages: number; integrity: string }>(["backup", "--to", join(dir, "copy.db")], {
        DATABASE_URL: databaseUrl,
      });
      await writes;
      expect(backup.integrity).toBe("ok");
      expect(backup.pages).toBeGreaterThan(1);
    } finally {
      await server.kill("SIGTERM");
    }
    const copy = new SqliteDatabase(join(dir, "copy.db"), { readonly: true });
    expect(copy.prepare("select id from merchants").all()).toEqual([{ id: merchant.merchant_id }]);
    copy.close();
  });

  it("rotates SECRETS_KEY: the old key opens secrets until they are resealed under the new one", async () => {
    const databaseUrl = `file:${join(dir, "rotate.db")}`;
    const created = await runCli<{ merchant_id: string; webhook_secret: string }>(
      ["merchants", "create", "--name", "Rotating"],
      { DATABASE_URL: databaseUrl, SECRETS_KEY: "old-key" },
    );
    const resealed = await runCli<{ merchants: number }>(["secrets", "reseal"], {
      DATABASE_URL: databaseUrl,
      SECRETS_KEY: "new-key",
      SECRETS_KEY_PREVIOUS: "old-key",
    });
    expect(resealed.merchants).toBe(1);
    const db = new SqliteDatabase(databaseUrl.replace(/^file:/, ""), { readonly: true });
    const { webhook_secret: stored } = db.prepare("select webhook_secret from merchants").get() as {
      webhook_secret: string;
    };
    db.close();
    expect(stored).not.toContain(created.webhook_secret);
    useSealingKey("new-key");
    expect(unseal(stored)).toBe(created.webhook_secret);
    useSealingKey("old-key");
    expect(() => unseal(stored)).toThrow("a stored secret cannot be opened with SECRETS_KEY or SECRETS_KEY_PREVIOUS");
  });
});
