import { stringify } from "csv-stringify/sync";
import { ChargeStatus, ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { neutraliseCell } from "./csv-result.js";
import type { ChargeRecord } from "./records.js";

/**
 * The charges export (docs/guide/dashboard.md#exporting-charges): one line per charge, newest
 * first, written page by page. UTF-8 with a BOM and CRLF, as the batch result (Excel opens it as
 * UTF-8); cells a spreadsheet could run as formulas are neutralised the same way.
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

export interface ExportPayer {
  email: string;
  name: string;
  kana: string;
  maskedAccount: string;
}

/** The lines of one page; the first page starts with the BOM and the header. */
export function chargeExportChunk(
  page: ReadonlyArray<{ charge: ChargeRecord; payer: ExportPayer | undefined }>,
  first: boolean,
): string {
  const records = page.map(({ charge, payer }) => [
    charge.id,
    charge.createdAt.toISOString(),
    ChargeStatus[charge.status] ?? String(charge.status),
    String(charge.amount),
    String(charge.refundedAmount),
    charge.description,
    charge.customerId ?? "",
    payer?.email ?? "",
    payer?.name ?? "",
    payer?.kana ?? "",
    payer?.maskedAccount ?? "",
    charge.status === ChargeStatus.FAILURE ? `ERROR_TYPE_${ErrorType[charge.errorType]}` : "",
    charge.status === ChargeStatus.FAILURE ? charge.errorMessage : "",
  ]);
  const lines = stringify(
    (first ? [[...chargeExportColumns], ...records] : records).map((record) => record.map(neutraliseCell)),
    { record_delimiter: "windows", quoted_match: /[\r\n",]/ },
  );
  return first ? `\uFEFF${lines}` : lines;
}
