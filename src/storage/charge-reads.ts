import { type Kysely, sql } from "kysely";
import type { ChargeRecord, RefundRecord } from "../domain/records.js";
import type { Database } from "./schema.js";
import { chargeFromRow, refundFromRow } from "./records.js";
import { bound, compiledOnce, slot } from "./compiled-once.js";

/** GetCharge's reads, each compiled once per database (compiled-once.ts). */

const chargeIdSlot = slot("charge id");
const merchantIdSlot = slot("merchant id");

/** A merchant's charge by id: another merchant's id reads exactly like a missing one. */
export async function findCharge(
  db: Kysely<Database>,
  merchantId: string,
  id: string,
): Promise<ChargeRecord | undefined> {
  const query = compiledOnce(db, "charge", () =>
    db
      .selectFrom("charges")
      .selectAll()
      .where("id", "=", chargeIdSlot)
      .where("merchant_id", "=", merchantIdSlot)
      .compile(),
  );
  const { rows } = await db.executeQuery(bound(query, { [chargeIdSlot]: id, [merchantIdSlot]: merchantId }));
  return rows[0] && chargeFromRow(rows[0]);
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
  const query = compiledOnce(db, `refunds ${whole}`, () =>
    db
      .selectFrom("refunds")
      .selectAll()
      .where("charge_id", "=", chargeIdSlot)
      .orderBy("seq", "desc")
      .limit(sql.lit(whole))
      .compile(),
  );
  const { rows } = await db.executeQuery(bound(query, { [chargeIdSlot]: chargeId }));
  return rows.map(refundFromRow);
}
