import { basename } from "node:path";
import { decodeDebitFile, decodeFailuresOnlyResult } from "../domain/zengin-debit-file.js";
import type { ConsignorSettings } from "../domain/zengin-records.js";
import { decodeTransferFile } from "../domain/zengin-transfer-file.js";
import { readZenginFile } from "../ports/zengin-transport.js";
import { listFiles } from "../storage/zengin.js";
import type { FlowContext } from "./flow-context.js";

/**
 * What the command line prints about the Zengin exchange. Its JSON field names are a documented
 * interface (docs/reference/cli.md, docs/operations/zengin.md#commands): snake_case, as they were.
 */

/** `zengin files list`: every file sent and received, newest first. */
export async function listZenginFiles(ctx: FlowContext) {
  return (await listFiles(ctx.tx.db)).map((file) => ({
    name: file.name,
    merchant_id: file.merchantId,
    kind: file.kind,
    direction: file.direction,
    date: file.date,
    state: file.state,
    records: file.recordCount,
    total: file.totalAmount,
    done: { count: file.doneCount, amount: file.doneAmount },
    failed: { count: file.failedCount, amount: file.failedAmount },
    reason: file.reason,
    results_due_at: file.dueAt?.toISOString() ?? null,
  }));
}

/** `zengin files show FILE`: the decoded records of a file in ZENGIN_DIR's folders, or at a path. */
export async function showZenginFile(dir: string, file: string) {
  const bytes = await readZenginFile(dir, file);
  const kind = bytes.subarray(1, 3).toString("latin1");
  const answered = /^R/.test(basename(file));
  const decoded = kind === "21" ? decodeTransferFile(bytes) : decodeDebitFile(bytes, answered);
  if (!decoded.ok && kind === "91" && answered) {
    // A result that lists only the failed debits (docs/guide/direct-debit-files.md#result-styles).
    const failuresOnly = decodeFailuresOnlyResult(bytes);
    if (failuresOnly.ok) return { file, valid: true, kind, result_style: "failures_only", ...failuresOnly.file };
  }
  if (!decoded.ok) return { file, valid: false, reason: decoded.reason };
  return { file, valid: true, kind, ...decoded.file };
}

/** `merchants update --consignor-…` and `zengin contracts …`: a contract as saved. */
export function consignorView(settings: ConsignorSettings) {
  return {
    merchant_id: settings.merchantId,
    code: settings.code,
    scope: settings.scope,
    banks: settings.banks,
    transfer_code: settings.transferCode,
    name: settings.name,
    bank_code: settings.bankCode,
    bank_name: settings.bankName,
    branch_code: settings.branchCode,
    branch_name: settings.branchName,
    account_type: settings.accountType,
    account_number: settings.accountNumber,
    debit_day: settings.debitDay,
    result_style: settings.resultStyle,
    name_characters: settings.nameCharacters,
    updated_at: settings.updatedAt.toISOString(),
  };
}
