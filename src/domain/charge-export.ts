import { stringify } from "csv-stringify/sync";
import { ChargeExportLayout } from "../../gen/payments/v1/dashboard_service_pb.js";
import { ChargeStatus, ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { neutraliseCell } from "./csv-result.js";
import { chargeStatusWording, formatJstDateTime } from "./display-format.js";
import { jstDateOf, jstOffsetMs } from "./jst.js";
import { errorTypeMessagesJa } from "./payment-failure.js";
import type { ChargeRecord } from "./records.js";
import { zenginResultOfMessage } from "./zengin-result.js";

/**
 * The charges export (docs/guide/dashboard.md#exporting-charges): one line per charge, newest
 * first, written page by page. UTF-8 with a BOM and CRLF, as the batch result (Excel opens it as
 * UTF-8); cells a spreadsheet could run as formulas are neutralised the same way.
 *
 * Two layouts. JAPANESE (the default) is for the merchant who totals by day: Japanese headers, the
 * time in JST, statuses and reasons in the words of the screens, then the machine-readable
 * created_at (ISO 8601 at +09:00), status and error_type. MACHINE is the file as it was before
 * (English headers, UTC, enum names, English messages), for scripts written against it.
 */
export const chargeExportColumns = Object.freeze([
  "charge_id",
  "created_at",
  "status",
  "amount",
  "refunded_amount",
  "description",
  "customer_id",
  "customer_email",
  "customer_name",
  "customer_kana",
  "masked_account",
  "error_type",
  "error_message",
] as const);

export const chargeExportColumnsJa = Object.freeze([
  "決済ID",
  "作成日時",
  "ステータス",
  "金額",
  "返金額",
  "内容",
  "顧客ID",
  "メールアドレス",
  "氏名",
  "フリガナ",
  "口座",
  "失敗理由",
  "created_at",
  "status",
  "error_type",
] as const);

export interface ExportPayer {
  email: string;
  name: string;
  kana: string;
  maskedAccount: string;
}

type ExportLine = { charge: ChargeRecord; payer: ExportPayer | undefined };

/** The file's name: the JST date it was made on (a file made at 08:50 JST is that day's, not UTC's day before). */
export function chargeExportFileName(now: Date): string {
  return `charges-${jstDateOf(now)}.csv`;
}

/** An instant as ISO 8601 in JST (2026-11-28T08:41:59.311+09:00): what a script parses, on the merchant's day. */
function isoJst(at: Date): string {
  return `${new Date(at.getTime() + jstOffsetMs).toISOString().slice(0, -1)}+09:00`;
}

/** Why a failed charge failed, in the dashboard's words: the bank's 振替結果コード when a result file gave one. */
function failureReasonJa(charge: ChargeRecord): string {
  const zengin = zenginResultOfMessage(charge.errorMessage);
  return zengin ? `振替結果コード ${zengin.code}: ${zengin.japanese}` : errorTypeMessagesJa[charge.errorType];
}

/** The columns both layouts share, in the same order: the amounts, the description and who paid. */
function amountAndPayerCells({ charge, payer }: ExportLine): string[] {
  return [
    String(charge.amount),
    String(charge.refundedAmount),
    charge.description,
    charge.customerId ?? "",
    payer?.email ?? "",
    payer?.name ?? "",
    payer?.kana ?? "",
    payer?.maskedAccount ?? "",
  ];
}

function machineLine(line: ExportLine): string[] {
  const { charge } = line;
  const failed = charge.status === ChargeStatus.FAILURE;
  return [
    charge.id,
    charge.createdAt.toISOString(),
    ChargeStatus[charge.status] ?? String(charge.status),
    ...amountAndPayerCells(line),
    failed ? `ERROR_TYPE_${ErrorType[charge.errorType]}` : "",
    failed ? charge.errorMessage : "",
  ];
}

function japaneseLine(line: ExportLine): string[] {
  const { charge } = line;
  const failed = charge.status === ChargeStatus.FAILURE;
  return [
    charge.id,
    // To the second: two charges of one minute stay apart when sorted.
    `${formatJstDateTime(charge.createdAt)}:${isoJst(charge.createdAt).slice(17, 19)}`,
    chargeStatusWording[charge.status].ja,
    ...amountAndPayerCells(line),
    failed ? failureReasonJa(charge) : "",
    isoJst(charge.createdAt),
    ChargeStatus[charge.status] ?? String(charge.status),
    failed ? `ERROR_TYPE_${ErrorType[charge.errorType]}` : "",
  ];
}

/** The lines of one page; the first page starts with the BOM and the header. */
export function chargeExportChunk(
  page: readonly ExportLine[],
  first: boolean,
  layout: ChargeExportLayout = ChargeExportLayout.JAPANESE,
): string {
  const machine = layout === ChargeExportLayout.MACHINE;
  const header = machine ? chargeExportColumns : chargeExportColumnsJa;
  const records = page.map(machine ? machineLine : japaneseLine);
  const lines = stringify(
    (first ? [[...header], ...records] : records).map((record) => record.map(neutraliseCell)),
    { record_delimiter: "windows", quoted_match: /[\r\n",]/ },
  );
  return first ? `\uFEFF${lines}` : lines;
}
