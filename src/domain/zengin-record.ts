/**
 * The Zengin (全銀協) fixed-length record format shared by the account-debit (種別 91) and
 * credit-transfer (種別 21) files: 120-byte records, each followed by CR LF, in Shift_JIS bytes of
 * the JIS X 0201 character set (ASCII digits, A–Z, space, `( ) - . /` and half-width katakana).
 * N fields are digits right-aligned with leading zeros, C fields text left-aligned with spaces.
 * The layouts are in docs/operations/zengin.md.
 */
export const recordLength = 120;

/** One field of a record layout: its name, N (numeric) or C (text), and its width in bytes. */
export type Field = readonly [name: string, kind: "N" | "C", length: number];
export type Layout = readonly Field[];

/** What a bank accepts in a C field (JIS X 0201, as Zengin files use it). */
const zenginText = /^[0-9A-Z ().\-/ｦ-ﾟ]*$/u;

export class ZenginEncodingError extends Error {}

/** The N field: digits, right-aligned, zero-padded. */
export function numeric(value: number | string, length: number, name = "field"): string {
  const digits = typeof value === "number" ? (Number.isSafeInteger(value) && value >= 0 ? String(value) : "x") : value;
  if (!/^\d*$/.test(digits) || digits.length > length)
    throw new ZenginEncodingError(`${name} ${JSON.stringify(value)} is not a number of at most ${length} digits`);
  return digits.padStart(length, "0");
}

/** The C field: left-aligned, space-padded, in the Zengin character set. */
export function text(value: string, length: number, name = "field"): string {
  if (!zenginText.test(value))
    throw new ZenginEncodingError(`${name} ${JSON.stringify(value)} is not in the Zengin character set`);
  if (value.length > length) throw new ZenginEncodingError(`${name} ${JSON.stringify(value)} is longer than ${length}`);
  return value.padEnd(length, " ");
}

/** One record from its layout and values (missing C fields are blank, missing N fields zero). */
export function encodeFields(layout: Layout, values: Readonly<Record<string, string | number>>): string {
  const record = layout
    .map(([name, kind, length]) =>
      kind === "N" ? numeric(values[name] ?? 0, length, name) : text(String(values[name] ?? ""), length, name),
    )
    .join("");
  if (record.length !== recordLength) throw new Error(`layout is ${record.length} characters, not ${recordLength}`);
  return record;
}

/**
 * A record's values by field name (C fields with their padding removed), or the reason it does
 * not fit the layout (an N field that is not all digits).
 */
export function decodeFields(
  layout: Layout,
  record: string,
): { ok: true; values: Record<string, string> } | { ok: false; reason: string } {
  const values: Record<string, string> = {};
  let at = 0;
  for (const [name, kind, length] of layout) {
    const raw = record.slice(at, at + length);
    at += length;
    if (kind === "N" && !/^\d+$/.test(raw)) return { ok: false, reason: `${name} "${raw}" is not a number` };
    values[name] = kind === "N" ? raw : raw.trimEnd();
  }
  return { ok: true, values };
}

/** Shift_JIS bytes of JIS X 0201 text, each record followed by CR LF. */
export function encodeRecords(records: readonly string[]): Buffer {
  const bytes = Buffer.alloc(records.length * (recordLength + 2));
  let at = 0;
  for (const record of records) {
    if (record.length !== recordLength) throw new Error(`a record is ${record.length} characters, not 120`);
    for (let i = 0; i < record.length; i++) bytes[at++] = byteOf(record.charCodeAt(i));
    bytes[at++] = 0x0d;
    bytes[at++] = 0x0a;
  }
  return bytes;
}

function byteOf(code: number): number {
  if (code >= 0x20 && code <= 0x7e) return code;
  if (code >= 0xff61 && code <= 0xff9f) return code - 0xff61 + 0xa1;
  throw new ZenginEncodingError(`U+${code.toString(16)} is not in JIS X 0201`);
}

/** A file's records, each decoded only when asked for: a result file of 100,000 debits is never all strings at once. */
export interface RecordFile {
  readonly count: number;
  /** The record's text (half-width katakana as U+FF61–U+FF9F). */
  record(index: number): string;
  /** Its first character, the データ区分. */
  dataType(index: number): string;
}

/**
 * The framings a received file may come in (docs/operations/zengin.md#result-files-in-the-wild):
 * 120-byte records each followed by CR LF, by LF alone, or with no separator at all; the last
 * record's line end may be missing; blank lines (empty lines, CR LF or LF) and one EOF byte 0x1A
 * may follow the last record. Anything else is the reason the file is refused: a byte outside
 * JIS X 0201 (a Shift_JIS double-byte character, a control character), a short or long record, a
 * lone CR, a blank line between records, or a 0x1A before the end.
 */
export function openRecords(bytes: Uint8Array): { ok: true; records: RecordFile } | { ok: false; reason: string } {
  const end = endOfRecords(bytes);
  if (end === 0) return { ok: false, reason: "the file is empty" };
  const starts = recordStarts(bytes, end);
  if (!starts.ok) return starts;
  const count = starts.at.length;
  for (let number = 1; number <= count; number++) {
    const start = starts.at[number - 1];
    for (let i = start; i < start + recordLength; i++) {
      const byte = bytes[i];
      if ((byte < 0x20 || byte > 0x7e) && (byte < 0xa1 || byte > 0xdf))
        return {
          ok: false,
          reason: `record ${number} byte ${i - start + 1} (0x${byte.toString(16).padStart(2, "0")}) is not a JIS X 0201 character`,
        };
    }
  }
  const at = (index: number) => starts.at[index];
  return {
    ok: true,
    records: {
      count,
      dataType: (index) => String.fromCharCode(bytes[at(index)]),
      record: (index) => textOf(bytes, at(index)),
    },
  };
}

const cr = 0x0d;
const lf = 0x0a;
/** The EOF byte (Ctrl-Z) some systems still end a text file with. */
const eof = 0x1a;

/** Where the records end: before one final 0x1A and the blank lines (CR LF or LF) around it. */
function endOfRecords(bytes: Uint8Array): number {
  let end = bytes.length;
  if (bytes[end - 1] === eof) end--;
  while (end > 0 && (bytes[end - 1] === lf || bytes[end - 1] === cr)) end--;
  return end;
}

/**
 * Where each record starts in bytes[0, end): every 120 bytes when the file has no line ends,
 * else each record followed by CR LF or LF (the last one by nothing: `endOfRecords` took it off).
 */
function recordStarts(bytes: Uint8Array, end: number): { ok: true; at: Uint32Array } | { ok: false; reason: string } {
  const separated = bytes.subarray(0, end).includes(lf) || bytes.subarray(0, end).includes(cr);
  if (!separated) {
    if (end % recordLength !== 0)
      return { ok: false, reason: `the file is ${end} bytes, not a whole number of ${recordLength}-byte records` };
    return { ok: true, at: Uint32Array.from({ length: end / recordLength }, (_, index) => index * recordLength) };
  }
  const at = new Uint32Array(Math.floor(end / (recordLength + 1)) + 1);
  let count = 0;
  for (let start = 0; start < end; ) {
    const after = start + recordLength;
    const number = count + 1;
    const lineEnd = lineEndIn(bytes, start, Math.min(after, end));
    if (lineEnd >= 0 || after > end)
      return {
        ok: false,
        reason: `record ${number} is ${(lineEnd >= 0 ? lineEnd : end) - start} bytes, not ${recordLength}`,
      };
    at[count++] = start;
    if (after === end) break;
    if (bytes[after] === cr && bytes[after + 1] === lf) start = after + 2;
    else if (bytes[after] === lf) start = after + 1;
    else return { ok: false, reason: `record ${number} is not 120 bytes followed by CR LF (or LF)` };
    if (bytes[start] === cr || bytes[start] === lf)
      return { ok: false, reason: `a blank line follows record ${number}, before the end of the file` };
  }
  return { ok: true, at: at.subarray(0, count) };
}

/** Where the first CR or LF is in bytes[start, end), or -1. */
function lineEndIn(bytes: Uint8Array, start: number, end: number): number {
  const record = bytes.subarray(start, end);
  const at = Math.min(...[record.indexOf(cr), record.indexOf(lf)].map((index) => (index < 0 ? Infinity : index)));
  return at === Infinity ? -1 : start + at;
}

/** 120 checked bytes as text: ASCII as it is, 0xA1–0xDF as half-width katakana. */
function textOf(bytes: Uint8Array, start: number): string {
  let record = "";
  for (let i = start; i < start + recordLength; i++) {
    const byte = bytes[i];
    record += String.fromCharCode(byte < 0x80 ? byte : byte - 0xa1 + 0xff61);
  }
  return record;
}

/** "YYYY-MM-DD" → "MMDD", as the headers carry a date. */
export function monthDayOf(date: string): string {
  return date.slice(5, 7) + date.slice(8, 10);
}
