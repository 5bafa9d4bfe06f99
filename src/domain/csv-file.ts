import { createHash } from "node:crypto";
import { parse } from "csv-parse/sync";
import { RequestRefusal } from "./request-refusal.js";

import { csvColumns } from "./csv-columns.js";
import { limits } from "./limits.js";

export { csvColumns };

/** docs/reference/contract.md#limits — at most 300 rows per batch. */
export const maxCsvRows = limits.csvBatchRowsMax;

/**
 * The header a kind of batch expects: these column names in this order, the last ones optional
 * (from `required` on), and at most `rowsMax` data rows.
 */
export interface CsvLayout {
  columns: readonly string[];
  required: number;
  rowsMax: number;
}

/** The charge batch's: customer_email, customer_id, price, description, metadata[, idempotency_key]. */
export const chargeBatchLayout: CsvLayout = Object.freeze({ columns: csvColumns, required: 5, rowsMax: maxCsvRows });

/** A batch file as read: the header and the data rows, cells exactly as written. */
export interface CsvUpload {
  encoding: "utf-8" | "shift_jis";
  header: string[];
  rows: string[][];
  /** SHA-256 of header and rows: the batch's identity for its TOTP challenge and its rows' idempotency keys. */
  contentHash: string;
}

/** The batch-level rejections (docs/reference/contract.md#csv-batch-reasons), answered at once and not recorded. */
export type CsvFileRejection =
  | "CSV_UNPARSABLE"
  | "CSV_EMPTY"
  | "CSV_COLUMN_COUNT"
  | "CSV_HEADER_NAME"
  | "CSV_TOO_MANY_ROWS";

const reject = (reason: CsvFileRejection, message: string) => new RequestRefusal("invalid", message, { reason });

/**
 * Reads an uploaded batch (docs/reference/contract.md#csv-batch-reasons), or throws the
 * batch-level rejection. UTF-8 with or without a BOM is read as such; a file that is not valid
 * UTF-8 is decoded as Shift_JIS (Windows-31J, what Excel in Japan saves as "CSV"), and refused
 * as unparsable when it is not valid Shift_JIS either. Blank lines, and lines whose cells are
 * all blank (Excel writes them for formatted empty rows), are not rows.
 */
export function readCsvUpload(bytes: Uint8Array, layout: CsvLayout = chargeBatchLayout): CsvUpload {
  const { columns, required, rowsMax } = layout;
  const { text, encoding } = decode(bytes);
  let records: string[][];
  try {
    records = parse(text, { relax_column_count: true, skip_empty_lines: true }) as string[][];
  } catch (error) {
    throw reject("CSV_UNPARSABLE", `the file cannot be read as CSV: ${(error as Error).message}`);
  }
  const [header, ...rows] = records.filter((cells) => cells.some((cell) => cell.trim() !== ""));
  if (!header || rows.length === 0) throw reject("CSV_EMPTY", "the file is empty or has only the header row");
  if (header.length < required || header.length > columns.length) {
    const counts = required === columns.length ? `${required} is` : `${required} or ${columns.length} are`;
    const optional = columns.slice(required).join(", ");
    throw reject(
      "CSV_COLUMN_COUNT",
      `the header has ${header.length} columns; ${counts} accepted: ${columns.join(", ")}${optional ? ` (${optional} optional)` : ""}`,
    );
  }
  header.forEach((name, i) => {
    if (name.trim() !== columns[i])
      throw reject("CSV_HEADER_NAME", `column ${i + 1} of the header is "${name}"; expected "${columns[i]}"`);
  });
  if (rows.length > rowsMax)
    throw reject("CSV_TOO_MANY_ROWS", `the file has ${rows.length} rows; a batch has at most ${rowsMax}`);
  const contentHash = createHash("sha256")
    .update(JSON.stringify([header, rows]))
    .digest("hex");
  return { encoding, header: header.map((name) => name.trim()), rows, contentHash };
}

function decode(bytes: Uint8Array): { text: string; encoding: CsvUpload["encoding"] } {
  const hasBom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const body = hasBom ? bytes.subarray(3) : bytes;
  let decoded: { text: string; encoding: CsvUpload["encoding"] } | undefined;
  for (const encoding of hasBom ? (["utf-8"] as const) : (["utf-8", "shift_jis"] as const)) {
    try {
      decoded = { text: new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(body), encoding };
      break;
    } catch {
      // not this encoding; try the next
    }
  }
  // NUL never appears in a text CSV: UTF-16 files and binary files (e.g. .xlsx) have them.
  if (!decoded || decoded.text.includes("\u0000")) {
    throw reject(
      "CSV_UNPARSABLE",
      "the file is not text in UTF-8 or Shift_JIS: save it as CSV (UTF-8) and upload it again",
    );
  }
  return decoded;
}
