import { stringify } from "csv-stringify/sync";
import type { CsvRowOutcome } from "./csv-batch.js";

/**
 * A cell a spreadsheet could run as a formula (= + - @, or a leading tab or carriage return,
 * OWASP "CSV injection") gets a leading apostrophe: shown as text, never evaluated.
 */
export function neutraliseCell(cell: string): string {
  return /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell;
}

/**
 * The result CSV: the header and every input row as uploaded, plus `status` and `Reason`
 * (docs/guide/csv-batches.md). A row with too few cells is padded and one with too many is
 * cut to the header's width, so the two columns line up. UTF-8 with a BOM, CRLF: what Excel opens
 * as UTF-8.
 */
export function resultCsv(
  header: readonly string[],
  rows: ReadonlyArray<{ cells: readonly string[]; outcome: CsvRowOutcome }>,
): string {
  const width = header.length;
  const records = [
    [...header, "status", "Reason"],
    ...rows.map(({ cells, outcome }) => [
      ...Array.from({ length: width }, (_, i) => cells[i] ?? ""),
      outcome.status,
      outcome.reason,
    ]),
  ];
  return (
    "\uFEFF" +
    stringify(
      records.map((record) => record.map(neutraliseCell)),
      { record_delimiter: "windows" },
    )
  );
}
