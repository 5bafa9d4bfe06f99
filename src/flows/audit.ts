import {
  auditCsvHeader,
  auditCsvLines,
  type AuditActor,
  type AuditChange,
  type AuditEntry,
  type AuditFilter,
} from "../domain/audit.js";
import { normalizeEmail } from "../domain/customer.js";
import { newId } from "../domain/ids.js";
import { decodePageToken, encodePageToken, pageSize } from "../domain/page-token.js";
import { insertAuditEntry, listAuditEntries, type AuditCursor } from "../storage/audit-log.js";
import type { Tx } from "../storage/transactor.js";
import type { FlowContext } from "./flow-context.js";
import { limits } from "../domain/limits.js";

/**
 * The flow context of a person's dashboard call: a flow that changes something tells `audit`
 * what, inside the transaction that changes it, so the entry commits with the change or not at
 * all (docs/guide/dashboard.md#the-audit-log).
 */
export function auditedBy(ctx: FlowContext, actor: AuditActor): FlowContext {
  return { ...ctx, audit: (trx, change) => recordAudit(ctx, trx, actor, change) };
}

/** Appends one entry in the caller's transaction. */
export async function recordAudit(ctx: FlowContext, trx: Tx, actor: AuditActor, change: AuditChange): Promise<void> {
  await insertAuditEntry(trx, {
    ...actor,
    ...change,
    email: normalizeEmail(actor.email),
    id: newId("aud"),
    at: ctx.clock.now(),
  });
}

function normalised(filter: AuditFilter): AuditFilter {
  return { ...filter, email: filter.email ? normalizeEmail(filter.email) : "" };
}

/** One page of a merchant's audit log, newest first. */
export async function auditLogPage(
  ctx: FlowContext,
  merchantId: string,
  filter: AuditFilter,
  page: { size: number; token: string },
): Promise<{ entries: AuditEntry[]; nextPageToken: string }> {
  const limit = pageSize(page.size, limits.auditPageSizeDefault);
  const cursor = decodePageToken(page.token);
  const after = cursor && { at: cursor.createdAt, seq: Number(cursor.id) };
  const found = await listAuditEntries(ctx.tx.db, merchantId, normalised(filter), after, limit + 1);
  const entries = found.slice(0, limit);
  const last = entries.at(-1);
  return {
    entries,
    nextPageToken:
      found.length > limit && last ? encodePageToken({ createdAt: last.cursor.at, id: String(last.cursor.seq) }) : "",
  };
}

/** The whole filtered log as CSV text, chunk by chunk, reading the database a batch at a time. */
export async function* auditLogCsv(ctx: FlowContext, merchantId: string, filter: AuditFilter): AsyncGenerator<string> {
  yield auditCsvHeader();
  const wanted = normalised(filter);
  let after: AuditCursor | undefined;
  for (;;) {
    const entries = await listAuditEntries(ctx.tx.db, merchantId, wanted, after, limits.auditExportPageRows);
    if (entries.length > 0) yield auditCsvLines(entries);
    if (entries.length < limits.auditExportPageRows) return;
    after = entries[entries.length - 1].cursor;
  }
}
