import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { KycStatus, PaymentAuthorizationStatus } from "../../gen/payments/v1/enums_pb.js";
import { openStorage, type Storage } from "../../src/storage/database.js";
import { Transactor, isUniqueViolation } from "../../src/storage/transactor.js";
import { chargeRow } from "../helpers/charges.js";
import { dialects, freshDatabaseUrl } from "../helpers/test-server.js";

// The same suite proves SQLite and PostgreSQL alike (kysely's habit: loop over every dialect).
describe.each(dialects)("storage on %s", (dialect) => {
  let storage: Storage;
  let tx: Transactor;
  let cleanup: () => Promise<void>;
  let url: string;

  beforeAll(async () => {
    ({ url, cleanup } = freshDatabaseUrl(dialect));
    storage = await openStorage(url);
    tx = new Transactor(storage);
    await tx.write((trx) =>
      trx
        .insertInto("merchants")
        .values({
          id: "mer-1",
          name: "M",
          logo_url: "",
          webhook_url: "",
          webhook_secret: "whsec_x",
          webhook_failing: 0,
          webhook_failing_reason: "",
          created_at: "2026-01-01T00:00:00.000Z",
        })
        .execute(),
    );
  });
  afterAll(async () => {
    await storage?.close();
    await cleanup?.();
  });

  const charge = (id: string, amount = 1000) =>
    chargeRow({ id, merchantId: "mer-1", amount }, new Date("2026-01-01T00:00:00.000Z"));

  it("runs migrations once, also when opened again", async () => {
    const again = await openStorage(url);
    const tables = await tablesOf(again);
    expect(tables.map((t) => t.name)).toEqual(
      expect.arrayContaining(["charges", "events", "idempotency_keys", "jobs"]),
    );
    await again.close();
  });

  it("rolls back a failing write alone while concurrent writes commit", async () => {
    const results = await Promise.allSettled([
      tx.write((trx) => trx.insertInto("charges").values(charge("trx-a")).execute()),
      tx.write(async (trx) => {
        await trx.insertInto("charges").values(charge("trx-b")).execute();
        throw new Error("boom");
      }),
      tx.write((trx) => trx.insertInto("charges").values(charge("trx-c")).execute()),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    const ids = await storage.db
      .selectFrom("charges")
      .select("id")
      .where("id", "in", ["trx-a", "trx-b", "trx-c"])
      .orderBy("id")
      .execute();
    expect(ids.map((r) => r.id)).toEqual(["trx-a", "trx-c"]);
  });

  it("never lets concurrent read-then-write lose an update (row locks / BEGIN IMMEDIATE)", async () => {
    await tx.write((trx) => trx.insertInto("charges").values(charge("trx-counter", 10_000)).execute());
    // 40 concurrent "refund 100 if the remainder allows" on one charge: exactly 40 × 100 lands.
    await Promise.all(
      Array.from({ length: 40 }, () =>
        tx.write(async (trx) => {
          const row = await tx
            .lockRows(trx.selectFrom("charges").select(["refunded_amount", "amount"]).where("id", "=", "trx-counter"))
            .executeTakeFirstOrThrow();
          await new Promise((r) => setTimeout(r, 1));
          if (row.refunded_amount + 100 <= row.amount) {
            await trx
              .updateTable("charges")
              .set({ refunded_amount: row.refunded_amount + 100 })
              .where("id", "=", "trx-counter")
              .execute();
          }
        }),
      ),
    );
    const row = await storage.db
      .selectFrom("charges")
      .select("refunded_amount")
      .where("id", "=", "trx-counter")
      .executeTakeFirstOrThrow();
    expect(row.refunded_amount).toBe(4000);
  });

  it("refuses refunds beyond the charge amount at the database level", async () => {
    await tx.write((trx) => trx.insertInto("charges").values(charge("trx-cap", 500)).execute());
    await expect(
      tx.write((trx) => trx.updateTable("charges").set({ refunded_amount: 501 }).where("id", "=", "trx-cap").execute()),
    ).rejects.toThrow(dialect === "sqlite" ? /CHECK constraint failed/ : /violates check constraint/);
  });

  it("keeps one live customer per e-mail and merchant", async () => {
    const customer = (id: string) => ({
      id,
      merchant_id: "mer-1",
      email: "A@x.jp",
      email_normalized: "a@x.jp",
      name: "",
      katakana_last_name: "",
      katakana_first_name: "",
      address: "",
      birth_date: "",
      gender: "",
      metadata_json: "{}",
      kyc_status: KycStatus.NOT_SUBMITTED,
      kyc_rejection_reason: "",
      payment_status: PaymentAuthorizationStatus.NOT_AUTHORIZED,
      link_initialized: 0,
      activated: 0,
      deleted_at: null,
      created_at: "2026-01-01T00:00:00.000Z",
      updated_at: "2026-01-01T00:00:00.000Z",
    });
    await tx.write((trx) => trx.insertInto("customers").values(customer("cus-1")).execute());
    const error = await tx
      .write((trx) => trx.insertInto("customers").values(customer("cus-2")).execute())
      .catch((e) => e);
    expect(isUniqueViolation(error)).toBe(true);
  });

  it("books a bank ledger reference once", async () => {
    const entry = {
      customer_id: "cus-1",
      account_id: "bac-1",
      reference: "trx-ref",
      amount: -100,
      balance_after: 900,
      at: "2026-01-01T00:00:00.000Z",
    };
    await tx.write((trx) => trx.insertInto("bank_ledger").values(entry).execute());
    const error = await tx.write((trx) => trx.insertInto("bank_ledger").values(entry).execute()).catch((e) => e);
    expect(isUniqueViolation(error)).toBe(true);
  });

  it("answers a plain read", async () => {
    const { rows } = await sql<{ one: number }>`select 1 as one`.execute(storage.db);
    expect(Number(rows[0].one)).toBe(1);
  });
});

/**
 * Kysely's introspection reads every schema of the database: one another test run drops meanwhile
 * answers 3F000 (schema does not exist), as in openStorage's migrations. Look again then.
 */
async function tablesOf(storage: Storage) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await storage.db.introspection.getTables();
    } catch (error) {
      if ((error as { code?: string }).code !== "3F000" || attempt >= 5) throw error;
    }
  }
}
