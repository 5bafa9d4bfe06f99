import { debitResultCodes, type UnlistedDebits } from "./zengin-result-check.js";
import type { ResultStyle } from "./zengin-result-style.js";
import {
  decodeFields,
  encodeFields,
  encodeRecords,
  type Layout,
  openRecords,
  type RecordFile,
} from "./zengin-record.js";

/**
 * The Zengin account-debit file (預金口座振替, 種別コード 91): the request we send for one
 * consignor and debit date, and the result the bank returns in the same layout with a
 * 振替結果コード on every data record and the 振替済/振替不能 totals in the trailer.
 */
export const debitHeaderLayout: Layout = [
  ["dataType", "N", 1],
  ["kind", "N", 2],
  ["codeType", "N", 1],
  ["consignorCode", "N", 10],
  ["consignorName", "C", 40],
  ["debitDate", "N", 4],
  ["bankCode", "N", 4],
  ["bankName", "C", 15],
  ["branchCode", "N", 3],
  ["branchName", "C", 15],
  ["accountType", "N", 1],
  ["accountNumber", "N", 7],
  ["dummy", "C", 17],
];

export const debitDataLayout: Layout = [
  ["dataType", "N", 1],
  ["bankCode", "N", 4],
  ["bankName", "C", 15],
  ["branchCode", "N", 3],
  ["branchName", "C", 15],
  ["dummy1", "C", 4],
  ["accountType", "N", 1],
  ["accountNumber", "N", 7],
  ["holder", "C", 30],
  ["amount", "N", 10],
  ["newCode", "N", 1],
  ["customerNumber", "N", 20],
  // Read as text, so that a code outside the digits is reported as an unknown code (debitBatchOf).
  ["resultCode", "C", 1],
  ["dummy2", "C", 8],
];

export const debitTrailerLayout: Layout = [
  ["dataType", "N", 1],
  ["count", "N", 6],
  ["total", "N", 12],
  ["debitedCount", "N", 6],
  ["debitedAmount", "N", 12],
  ["failedCount", "N", 6],
  ["failedAmount", "N", 12],
  ["dummy", "C", 65],
];

export const endLayout: Layout = [
  ["dataType", "N", 1],
  ["dummy", "C", 119],
];

/** The consignor (委託者) and the account the debits are paid into. */
export interface Consignor {
  /** 委託者コード, 10 digits, given by the bank. */
  readonly code: string;
  /** 委託者名, half-width kana, at most 40 characters. */
  readonly name: string;
  readonly bankCode: string;
  readonly bankName: string;
  readonly branchCode: string;
  readonly branchName: string;
  /** 1 普通, 2 当座 (9 その他 in a transfer file). */
  readonly accountType: number;
  readonly accountNumber: string;
}

export interface DebitRecord {
  readonly bankCode: string;
  readonly bankName: string;
  readonly branchCode: string;
  readonly branchName: string;
  /** 1 普通, 2 当座, 4 貯蓄. */
  readonly accountType: number;
  readonly accountNumber: string;
  /** 預金者名, half-width kana. */
  readonly holder: string;
  readonly amount: number;
  /** 1 the first debit under a new mandate, 2 changed details, 0 otherwise. */
  readonly newCode: number;
  /** 20 digits that identify the charge. */
  readonly customerNumber: string;
  /** 0 in a request; the 振替結果コード in a result. */
  readonly resultCode: number;
}

export interface DebitFile {
  readonly consignor: Consignor;
  /** MMDD of the debit date. */
  readonly debitDate: string;
  readonly records: readonly DebitRecord[];
}

export interface DebitTotals {
  readonly count: number;
  readonly total: number;
  readonly debitedCount: number;
  readonly debitedAmount: number;
  readonly failedCount: number;
  readonly failedAmount: number;
}

/** The trailer's totals, added up record by record; a request file has no results yet, so its 振替済/不能 fields are zero. */
export function debitTally(answered: boolean) {
  const totals = { count: 0, total: 0, debitedCount: 0, debitedAmount: 0, failedCount: 0, failedAmount: 0 };
  return {
    add(record: DebitRecord): void {
      totals.count++;
      totals.total += record.amount;
      if (!answered) return;
      if (record.resultCode === 0) {
        totals.debitedCount++;
        totals.debitedAmount += record.amount;
      } else {
        totals.failedCount++;
        totals.failedAmount += record.amount;
      }
    },
    totals: (): DebitTotals => ({ ...totals }),
  };
}

export function debitTotals(records: readonly DebitRecord[], answered: boolean): DebitTotals {
  const tally = debitTally(answered);
  for (const record of records) tally.add(record);
  return tally.totals();
}

/**
 * The file's bytes: header, data records, trailer, end, each 120 bytes + CR LF in Shift_JIS. A
 * result in the `failures_only` style (zengin-result-style.ts) carries only the records not
 * debited, under the trailer of the whole request.
 */
export function encodeDebitFile(file: DebitFile, answered = false, style: ResultStyle = "all"): Buffer {
  const listed = style === "failures_only" ? file.records.filter((record) => record.resultCode !== 0) : file.records;
  return encodeRecords([
    debitHeaderRecord(file.consignor, file.debitDate),
    ...listed.map((record) => encodeDebitRecord(record)),
    debitTrailerRecord(debitTotals(file.records, answered)),
    endRecord(),
  ]);
}

export function debitHeaderRecord(consignor: Consignor, debitDate: string): string {
  return encodeFields(debitHeaderLayout, consignorFields(consignor, 91, debitDate));
}

export function encodeDebitRecord(record: DebitRecord): string {
  return encodeFields(debitDataLayout, { dataType: 2, ...record });
}

export function debitTrailerRecord(totals: DebitTotals): string {
  return encodeFields(debitTrailerLayout, { dataType: 8, ...totals });
}

export function endRecord(): string {
  return encodeFields(endLayout, { dataType: 9 });
}

export function consignorFields(consignor: Consignor, kind: number, date: string): Record<string, string | number> {
  return {
    dataType: 1,
    kind,
    codeType: 0,
    consignorCode: consignor.code,
    consignorName: consignor.name,
    debitDate: date,
    bankCode: consignor.bankCode,
    bankName: consignor.bankName,
    branchCode: consignor.branchCode,
    branchName: consignor.branchName,
    accountType: consignor.accountType,
    accountNumber: consignor.accountNumber,
  };
}

export type Decoded<T> = { ok: true; file: T } | { ok: false; reason: string };

/** A data record's values, or why it does not fit its layout. */
export type DecodedRecord<R> = { ok: true; record: R } | { ok: false; reason: string };

/**
 * A result (or request) file whose structure was checked, its data records decoded one at a
 * time: the import reads 100,000 of them a batch at a time (docs/operations/zengin.md#the-cycle).
 */
export interface OpenedFile<R> {
  /** The header's 委託者 (振込依頼人 in a transfer file). */
  readonly consignor: Consignor;
  /** MMDD: 引落日 (振込指定日). */
  readonly date: string;
  readonly count: number;
  record(index: number): DecodedRecord<R>;
  /**
   * Adds the records up as they are read; then why the trailer does not match them, or undefined.
   * `unlisted`: in a result that lists only the failed debits, the requested debits it does not
   * list, counted as debited (docs/guide/direct-debit-files.md#result-styles).
   */
  tally(): { add(record: R): void; mismatch(unlisted?: UnlistedDebits): string | undefined };
}

/** One header–trailer group of a file (a batch): its header and trailer values, its data records when asked for. */
export interface OpenedBatch {
  header: Record<string, string>;
  count: number;
  /** The data record's number in the whole file (1 is the file's first record), as reasons name it. */
  recordNumber(index: number): number;
  data(index: number): DecodedRecord<Record<string, string>>;
  trailer: Record<string, string>;
}

/**
 * The batches of a file: each a header, data records and a trailer, the file closed by an end
 * record (an end may also follow each trailer); nothing after the last end. Banks and agents send
 * several batches in one result file, one per debit date or contract
 * (docs/operations/zengin.md#result-files-in-the-wild).
 */
export function openBatches(
  bytes: Uint8Array,
  layouts: { header: Layout; data: Layout; trailer: Layout },
  kind: string,
): { ok: true; batches: OpenedBatch[] } | { ok: false; reason: string } {
  const opened = openRecords(bytes);
  if (!opened.ok) return opened;
  const records = opened.records;
  const ranges = batchRangesOf(records);
  if (!ranges.ok) return ranges;
  const batches: OpenedBatch[] = [];
  for (const { header: at, trailer: trailerAt } of ranges.ranges) {
    const where = ranges.ranges.length > 1 ? `record ${at + 1} (a header): ` : "header: ";
    const header = decodeFields(layouts.header, records.record(at));
    if (!header.ok) return { ok: false, reason: `${where}${header.reason}` };
    if (header.values.kind !== kind)
      return { ok: false, reason: `the header's 種別コード is ${header.values.kind}, not ${kind}` };
    const trailer = decodeFields(layouts.trailer, records.record(trailerAt));
    if (!trailer.ok) return { ok: false, reason: `trailer: ${trailer.reason}` };
    batches.push({
      header: header.values,
      count: trailerAt - at - 1,
      recordNumber: (index) => at + index + 2,
      data(index) {
        const record = decodeFields(layouts.data, records.record(at + index + 1));
        return record.ok
          ? { ok: true, record: record.values }
          : { ok: false, reason: `record ${at + index + 2}: ${record.reason}` };
      },
      trailer: trailer.values,
    });
  }
  return { ok: true, batches };
}

/** Where each batch's header and trailer are, by データ区分 alone, or why the records are not in that order. */
function batchRangesOf(
  records: RecordFile,
): { ok: true; ranges: { header: number; trailer: number }[] } | { ok: false; reason: string } {
  const ranges: { header: number; trailer: number }[] = [];
  const last = records.count - 1;
  let index = 0;
  while (index <= last) {
    if (records.dataType(index) !== "1")
      return {
        ok: false,
        reason: `record ${index + 1} is not a header (データ区分 1)${ranges.length ? " or an end (9)" : ""}`,
      };
    const header = index++;
    while (index <= last && records.dataType(index) === "2") index++;
    if (index > last) return { ok: false, reason: "the file is truncated: its last record is not an end (9)" };
    if (records.dataType(index) !== "8")
      return { ok: false, reason: `record ${index + 1} is not a trailer (データ区分 8)` };
    ranges.push({ header, trailer: index++ });
    if (index <= last && records.dataType(index) === "9") {
      index++;
      continue;
    }
    if (index > last) return { ok: false, reason: "the file is truncated: its last record is not an end (9)" };
  }
  if (records.dataType(last) !== "9")
    return { ok: false, reason: "the file is truncated: its last record is not an end (9)" };
  return { ok: true, ranges };
}

/** The file's one batch, or why not: a request file, and the readers that take one batch, have one. */
export function openFile(
  bytes: Uint8Array,
  layouts: { header: Layout; data: Layout; trailer: Layout },
  kind: string,
): ({ ok: true } & OpenedBatch) | { ok: false; reason: string } {
  const opened = openBatches(bytes, layouts, kind);
  if (!opened.ok) return opened;
  if (opened.batches.length > 1)
    return { ok: false, reason: `the file holds ${opened.batches.length} batches (header–trailer groups), not one` };
  return { ok: true, ...opened.batches[0] };
}

export function consignorOf(header: Record<string, string>): Consignor {
  return {
    code: header.consignorCode,
    name: header.consignorName,
    bankCode: header.bankCode,
    bankName: header.bankName,
    branchCode: header.branchCode,
    branchName: header.branchName,
    accountType: Number(header.accountType),
    accountNumber: header.accountNumber,
  };
}

/** A request (`answered` false) or result file of one batch, opened; its trailer compared with its records as they are read. */
export function openDebitFile(bytes: Uint8Array, answered: boolean): Decoded<OpenedFile<DebitRecord>> {
  const opened = openFile(bytes, debitLayouts, "91");
  return opened.ok ? { ok: true, file: debitBatchOf(opened, answered) } : opened;
}

/** Every batch of a result (or request) file, opened as `openDebitFile` opens one. */
export function openDebitBatches(bytes: Uint8Array, answered: boolean): Decoded<OpenedFile<DebitRecord>[]> {
  const opened = openBatches(bytes, debitLayouts, "91");
  return opened.ok ? { ok: true, file: opened.batches.map((batch) => debitBatchOf(batch, answered)) } : opened;
}

const debitLayouts = { header: debitHeaderLayout, data: debitDataLayout, trailer: debitTrailerLayout };

function debitBatchOf(opened: OpenedBatch, answered: boolean): OpenedFile<DebitRecord> {
  return {
    consignor: consignorOf(opened.header),
    date: opened.header.debitDate,
    count: opened.count,
    record(index) {
      const decoded = opened.data(index);
      if (!decoded.ok) return decoded;
      const code = decoded.record.resultCode;
      // A code outside the published list (one agent answers `N`) is held for a person, never guessed.
      if (answered ? !debitResultCodes.includes(Number(code)) || !/^\d$/.test(code) : code !== "0")
        return {
          ok: false,
          reason: `record ${opened.recordNumber(index)}: 振替結果コード "${code || " "}" is unknown`,
        };
      return { ok: true, record: debitRecordOf(decoded.record) };
    },
    tally() {
      const tally = debitTally(answered);
      return {
        add: tally.add,
        mismatch(unlisted) {
          const totals = withUnlisted(tally.totals(), unlisted);
          const what = unlisted
            ? `the listed records and the ${unlisted.count} debits not listed make`
            : "the records make";
          for (const [name, value] of Object.entries(totals))
            if (Number(opened.trailer[name]) !== value)
              return `the trailer's ${name} is ${Number(opened.trailer[name])}, ${what} ${value}`;
          return undefined;
        },
      };
    },
  };
}

/** The totals of the listed records with the unlisted debits added as debited. */
function withUnlisted(totals: DebitTotals, unlisted: UnlistedDebits | undefined): DebitTotals {
  if (!unlisted) return totals;
  return {
    ...totals,
    count: totals.count + unlisted.count,
    total: totals.total + unlisted.amount,
    debitedCount: totals.debitedCount + unlisted.count,
    debitedAmount: totals.debitedAmount + unlisted.amount,
  };
}

function debitRecordOf(values: Record<string, string>): DebitRecord {
  return {
    bankCode: values.bankCode,
    bankName: values.bankName,
    branchCode: values.branchCode,
    branchName: values.branchName,
    accountType: Number(values.accountType),
    accountNumber: values.accountNumber,
    holder: values.holder,
    amount: Number(values.amount),
    newCode: Number(values.newCode),
    customerNumber: values.customerNumber,
    resultCode: Number(values.resultCode),
  };
}

/** Every record of an opened file, or the first reason it is refused (the trailer's included). */
export function readWhole<R>(file: OpenedFile<R>): { ok: true; records: R[] } | { ok: false; reason: string } {
  const records: R[] = [];
  const tally = file.tally();
  for (let index = 0; index < file.count; index++) {
    const decoded = file.record(index);
    if (!decoded.ok) return decoded;
    tally.add(decoded.record);
    records.push(decoded.record);
  }
  const mismatch = tally.mismatch();
  return mismatch ? { ok: false, reason: mismatch } : { ok: true, records };
}

/**
 * Reads a request (`answered` false) or result file whole (the CLI, the simulated bank). Refused:
 * anything `openFile` refuses, a record that does not fit the layout, and a trailer whose counts
 * and amounts differ from its records (and, in a result, from their results).
 */
export function decodeDebitFile(bytes: Uint8Array, answered: boolean): Decoded<DebitFile> {
  const opened = openDebitFile(bytes, answered);
  if (!opened.ok) return opened;
  const read = readWhole(opened.file);
  if (!read.ok) return read;
  return { ok: true, file: { consignor: opened.file.consignor, debitDate: opened.file.date, records: read.records } };
}

/**
 * A result in the failures_only style (zengin-result-style.ts) read whole, without its request (the
 * CLI's `zengin files show`): the debits it does not list are taken from its trailer's count and
 * total, and its 振替済/振替不能 totals are checked against them and the records listed.
 */
export function decodeFailuresOnlyResult(bytes: Uint8Array): Decoded<DebitFile & { unlisted: UnlistedDebits }> {
  const opened = openFile(bytes, debitLayouts, "91");
  if (!opened.ok) return opened;
  const file = debitBatchOf(opened, true);
  const records: DebitRecord[] = [];
  for (let index = 0; index < file.count; index++) {
    const decoded = file.record(index);
    if (!decoded.ok) return decoded;
    records.push(decoded.record);
  }
  const listedAmount = records.reduce((sum, record) => sum + record.amount, 0);
  const unlisted = {
    count: Number(opened.trailer.count) - records.length,
    amount: Number(opened.trailer.total) - listedAmount,
  };
  if (unlisted.count < 0 || unlisted.amount < 0)
    return { ok: false, reason: "the trailer counts fewer debits than the file lists" };
  const tally = file.tally();
  for (const record of records) tally.add(record);
  const mismatch = tally.mismatch(unlisted);
  if (mismatch) return { ok: false, reason: mismatch };
  return { ok: true, file: { consignor: file.consignor, debitDate: file.date, records, unlisted } };
}
