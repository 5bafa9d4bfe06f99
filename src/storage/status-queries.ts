import { runCompiled, slot } from "./compiled-once.js";
import { type Kysely, sql } from "kysely";
import type { ContractRecord, CustomerRecord, RefundRecord } from "../domain/records.js";
import type { Database } from "./schema.js";
import { contractFromRow, customerFromRow, refundFromRow } from "./records.js";

/** Reads scoped to one merchant: another merchant's id reads exactly like a missing one. */
export { findCharge } from "./charge-reads.js";

/**
 * A page of a charge's refunds in the order they were accepted (`seq`), oldest first after the
 * refund `afterId` (the previous page's last). GetCharge's newest ones: `newestRefundsOfCharge`.
 */
export async function refundsOfCharge(
  db: Kysely<Database>,
  chargeId: string,
  options: { limit: number; afterId?: string },
): Promise<RefundRecord[]> {
  let query = db.selectFrom("refunds").selectAll().where("charge_id", "=", chargeId);
  const afterId = options.afterId;
  if (afterId)
    query = query.where("seq", ">", (eb) => eb.selectFrom("refunds").select("seq").where("id", "=", afterId));
  // A literal limit: better-sqlite3 runs this statement about five times faster than with `limit ?`
  // (docs/operations/benchmark.md#per-request-work); a limit is a whole number, never text.
  const rows = await query
    .orderBy("seq", "asc")
    .limit(sql.lit(Math.trunc(options.limit)))
    .execute();
  return rows.map(refundFromRow);
}

export async function findContract(
  db: Kysely<Database>,
  merchantId: string,
  id: string,
): Promise<ContractRecord | undefined> {
  const row = await db
    .selectFrom("contracts")
    .selectAll()
    .where("id", "=", id)
    .where("merchant_id", "=", merchantId)
    .executeTakeFirst();
  return row && contractFromRow(row);
}

export async function findCustomer(
  db: Kysely<Database>,
  merchantId: string,
  id: string,
): Promise<CustomerRecord | undefined> {
  const [row] = await runCompiled(
    db,
    "customer by id",
    () =>
      db
        .selectFrom("customers")
        .selectAll()
        .where("id", "=", slot("id"))
        .where("merchant_id", "=", slot("merchant"))
        .where("deleted_at", "is", null),
    { id, merchant: merchantId },
  );
  return row && customerFromRow(row);
}

/** Newest first; the cursor is the (created_at, id) of the last row of the previous page. */
export async function listCustomers(
  db: Kysely<Database>,
  merchantId: string,
  options: { emailNormalized?: string; limit: number; after?: { createdAt: string; id: string } },
): Promise<CustomerRecord[]> {
  let query = db
    .selectFrom("customers")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .where("deleted_at", "is", null);
  if (options.emailNormalized) query = query.where("email_normalized", "=", options.emailNormalized);
  const after = options.after;
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb("created_at", "<", after.createdAt),
        eb.and([eb("created_at", "=", after.createdAt), eb("id", "<", after.id)]),
      ]),
    );
  }
  const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc").limit(options.limit).execute();
  return rows.map(customerFromRow);
}
