import { decodePageToken, encodePageToken, pageSize } from "../domain/page-token.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { payersOf } from "../storage/dashboard-search.js";
import { zenginFileRecordsPage } from "../storage/zengin-file-records.js";
import { listFiles } from "../storage/zengin.js";
import type { FlowContext } from "./flow-context.js";

/**
 * The dashboard's view (DashboardService.ListZenginFiles): the merchant's files, each debit date
 * reconciled, the alerts (docs/operations/zengin.md#alerts) and the files found in incoming/ under an
 * unexpected name (docs/operations/zengin.md#unexpected-file-names).
 */
export async function zenginFilesOfMerchant(ctx: FlowContext, merchantId: string) {
  const now = ctx.clock.now();
  const files = (await listFiles(ctx.tx.db, merchantId)).map((file) => ({
    ...file,
    overdue: file.direction === "out" && file.state === "sent" && file.dueAt !== null && file.dueAt < now,
  }));
  const debitDates = files
    .filter((file) => file.direction === "out" && file.kind === "91")
    .map((file) => {
      const answered = file.doneCount + file.failedCount;
      const results = file.doneAmount + file.failedAmount;
      return {
        date: file.date,
        requestedCount: file.recordCount,
        requestedAmount: file.totalAmount,
        answeredCount: answered,
        debitedAmount: file.doneAmount,
        failedAmount: file.failedAmount,
        reconciled: file.state === "answered" && answered === file.recordCount && results === file.totalAmount,
      };
    });
  // One row per file found under an unexpected name (a file of several batches is recorded once per batch).
  const unexpected = new Map(
    files
      .filter((file) => file.direction === "in" && file.unexpectedName)
      .map((file) => [file.sha256, { name: file.name, firstSeenAt: file.createdAt, state: file.state }]),
  );
  return {
    files,
    debitDates,
    unexpectedFiles: [...unexpected.values()],
    quarantined: files.filter((file) => file.state === "quarantined").length,
    overdue: files.filter((file) => file.overdue).length,
  };
}

/**
 * A page of one file's records with who each customer is (DashboardService.ListZenginFileRecords);
 * the page token is the last 顧客番号 read. A file of another merchant is not found.
 */
export async function zenginFileRecords(
  ctx: FlowContext,
  merchantId: string,
  query: { fileId: string; pageSize: number; pageToken: string },
) {
  const limit = pageSize(query.pageSize, 50);
  const after = decodePageToken(query.pageToken)?.id ?? "";
  const page = await zenginFileRecordsPage(ctx.tx.db, merchantId, query.fileId, after, limit + 1);
  if (!page) throw new RequestRefusal("not_found", `Zengin file ${query.fileId} not found`);
  const records = page.records.slice(0, limit);
  const last = records[records.length - 1];
  return {
    ...page,
    records,
    payers: await payersOf(
      ctx.tx.db,
      merchantId,
      records.flatMap((r) => (r.customerId ? [r.customerId] : [])),
    ),
    nextPageToken:
      page.records.length > limit && last ? encodePageToken({ createdAt: "", id: last.customerNumber }) : "",
  };
}
