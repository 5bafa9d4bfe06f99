import { stringify } from "csv-stringify/sync";
import type { CsvReasonFields } from "./csv-row.js";

/** What the result says of a row: its status word and, for a row not done, why. */
export type CsvRowResult = CsvReasonFields & { status: string };

/**
 * A cell a spreadsheet could run as a formula gets a leading apostrophe: shown as text, never
 * evaluated (OWASP "CSV injection"). That is a cell whose first character that is not blank
 * (spaces, tabs, CR/LF, the ideographic space) is = + - @ or their full-width forms ＝＋－＠, and
 * any cell starting with a tab or a carriage return.
 */
export function neutraliseCell(cell: string): string {
  return /^[\t\r]|^\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]/.test(cell) ? `'${cell}` : cell;
}

/**
 * The result CSV: the header and every input row as uploaded, plus `status`, `Reason` (the spec's
 * English text), `理由` (the same in Japanese) and `charge_id` (the charge the row made, if any)
 * (docs/guide/csv-batches.md#the-result-file); the subscription import names its last column
 * `subscription_id` (the row's `chargeId` then holds the subscription's id). Every cell holding a
 * CR, LF, quote or comma is quoted. A row with too few cells is padded and one with too many is
 * cut to the header's width, so the two columns line up. UTF-8 with a BOM, CRLF: what Excel opens
 * as UTF-8.
 */
export function resultCsv(
  header: readonly string[],
  rows: ReadonlyArray<{ cells: readonly string[]; outcome: CsvRowResult; chargeId: string | null }>,
  idColumn = "charge_id",
): string {
  const width = header.length;
  const records = [
    [...header, "status", "Reason", "理由", idColumn],
    ...rows.map(({ cells, outcome, chargeId }) => [
      ...Array.from({ length: width }, (_, i) => cells[i] ?? ""),
      outcome.status,
      outcome.reason,
      outcome.reasonJa,
      chargeId ?? "",
    ]),
  ];
  return (
    "\uFEFF" +
    stringify(
      records.map((record) => record.map(neutraliseCell)),
      // CRLF between records; csv-stringify then quotes only cells holding the whole CRLF, so a
      // lone CR or LF (and the quote, the comma) is named here: such a cell is always quoted.
      { record_delimiter: "windows", quoted_match: /[\r\n",]/ },
    )
  );
}
