import type { Kysely, Selectable } from "kysely";
import type { AuditEntry, AuditFilter } from "../domain/audit.js";
import { auditPeriod } from "../domain/audit.js";
import type { AuditLogTable, Database } from "./schema.js";
import { olderThanCursor } from "./keyset-cursor.js";

/**
 * The audit log: appended to, read, never changed (the only statement here that writes is an
 * INSERT; the database refuses UPDATE, and DELETE of an entry younger than 400 days).
 */
export async function insertAuditEntry(db: Kysely<Database>, entry: AuditEntry): Promise<void> {
  await db
    .insertInto("audit_log")
    .values({
      id: entry.id,
      merchant_id: entry.merchantId,
      at: entry.at.toISOString(),
      user_id: entry.userId,
      email: entry.email,
      action: entry.action,
      target: entry.target,
      details_json: JSON.stringify(entry.details ?? {}),
      client_address: entry.clientAddress,
      user_agent: entry.userAgent,
    })
    .execute();
}

/** A merchant's entries matching the filter, newest first, after the cursor. */
export async function listAuditEntries(
  db: Kysely<Database>,
  merchantId: string,
  filter: AuditFilter,
  after: AuditCursor | undefined,
  limit: number,
): Promise<Array<AuditEntry & { cursor: AuditCursor }>> {
  const { from, until } = auditPeriod(filter);
  let query = db.selectFrom("audit_log").selectAll().where("merchant_id", "=", merchantId);
  if (filter.email) query = query.where("email", "=", filter.email);
  if (filter.action)
    query = query.where((eb) => eb.or([eb("action", "=", filter.action), eb("action", "like", `${filter.action}.%`)]));
  if (from) query = query.where("at", ">=", from.toISOString());
  if (until) query = query.where("at", "<", until.toISOString());
  if (after)
    query = query.where((eb) => olderThanCursor(eb, { time: "at", tie: "seq" }, { time: after.at, tie: after.seq }));
  const rows = await query.orderBy("at", "desc").orderBy("seq", "desc").limit(limit).execute();
  return rows.map(entryOf);
}

/** Where a page of entries ends: the next page starts after it. */
export interface AuditCursor {
  at: string;
  seq: number;
}

function entryOf(row: Selectable<AuditLogTable>): AuditEntry & { cursor: AuditCursor } {
  return {
    cursor: { at: row.at, seq: Number(row.seq) },
    id: row.id,
    merchantId: row.merchant_id,
    at: new Date(row.at),
    userId: row.user_id,
    email: row.email,
    action: row.action as AuditEntry["action"],
    target: row.target,
    details: JSON.parse(row.details_json) as Record<string, unknown>,
    clientAddress: row.client_address,
    userAgent: row.user_agent,
  };
}
