import { type Kysely, sql } from "kysely";
import type { ChargeRecord, RefundRecord } from "../domain/records.js";
import type { Database } from "./schema.js";
import { chargeFromRow, refundFromRow } from "./records.js";
import { runCompiled, slot } from "./compiled-once.js";

/** GetCharge's reads, each compiled once per database (compiled-once.ts). */

/** A merchant's charge by id: another merchant's id reads exactly like a missing one. */
export async function findCharge(
  db: Kysely<Database>,
  merchantId: string,
  id: string,
): Promise<ChargeRecord | undefined> {
  const [row] = await runCompiled(
    db,
    "charge",
    () => db.selectFrom("charges").selectAll().where("id", "=", slot("id")).where("merchant_id", "=", slot("merchant")),
    { id, merchant: merchantId },
  );
  return row && chargeFromRow(row);
}

/**
 * A charge's newest refunds, newest first, at most `limit`. The limit is a literal in the text
 * (a whole number, never input text): see `refundsOfCharge` in status-queries.ts for why.
 */
export async function newestRefundsOfCharge(
  db: Kysely<Database>,
  chargeId: string,
  limit: number,
): Promise<RefundRecord[]> {
  const whole = Math.trunc(limit);
  const rows = await runCompiled(
    db,
    `refunds ${whole}`,
    () =>
      db
        .selectFrom("refunds")
        .selectAll()
        .where("charge_id", "=", slot("charge"))
        .orderBy("seq", "desc")
        .limit(sql.lit(whole)),
    { charge: chargeId },
  );
  return rows.map(refundFromRow);
}
