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
 * The records of a file: 120-byte records each followed by CR LF, or (as banks also accept)
 * with no separator at all. A byte outside JIS X 0201 (a Shift_JIS double-byte character, a
 * control character), a short record or a lone CR or LF is the reason the file is refused. The
 * whole file is checked here, byte by byte, without decoding it.
 */
export function openRecords(bytes: Uint8Array): { ok: true; records: RecordFile } | { ok: false; reason: string } {
  if (bytes.length === 0) return { ok: false, reason: "the file is empty" };
  const separated = bytes.includes(0x0d) || bytes.includes(0x0a);
  const stride = separated ? recordLength + 2 : recordLength;
  if (bytes.length % stride !== 0)
    return {
      ok: false,
      reason: `the file is ${bytes.length} bytes, not a whole number of ${recordLength}-byte records${separated ? " each followed by CR LF" : ""}`,
    };
  const count = bytes.length / stride;
  for (let number = 1, start = 0; start < bytes.length; number++, start += stride) {
    if (separated && (bytes[start + recordLength] !== 0x0d || bytes[start + recordLength + 1] !== 0x0a))
      return { ok: false, reason: `record ${number} is not 120 bytes followed by CR LF` };
    for (let i = start; i < start + recordLength; i++) {
      const byte = bytes[i];
      if ((byte < 0x20 || byte > 0x7e) && (byte < 0xa1 || byte > 0xdf))
        return {
          ok: false,
          reason: `record ${number} byte ${i - start + 1} (0x${byte.toString(16).padStart(2, "0")}) is not a JIS X 0201 character`,
        };
    }
  }
  const at = (index: number) => index * stride;
  return {
    ok: true,
    records: {
      count,
      dataType: (index) => String.fromCharCode(bytes[at(index)]),
      record: (index) => textOf(bytes, at(index)),
    },
  };
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
