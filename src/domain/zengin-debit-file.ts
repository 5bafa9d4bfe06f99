import { decodeFields, decodeRecords, encodeFields, encodeRecords, type Layout, monthDayOf } from "./zengin-record.js";

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
  ["resultCode", "N", 1],
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

/** The trailer's totals; a request file has no results yet, so its 振替済/不能 fields are zero. */
export function debitTotals(records: readonly DebitRecord[], answered: boolean): DebitTotals {
  const sum = (list: readonly DebitRecord[]) => list.reduce((total, record) => total + record.amount, 0);
  const debited = answered ? records.filter((record) => record.resultCode === 0) : [];
  const failed = answered ? records.filter((record) => record.resultCode !== 0) : [];
  return {
    count: records.length,
    total: sum(records),
    debitedCount: debited.length,
    debitedAmount: sum(debited),
    failedCount: failed.length,
    failedAmount: sum(failed),
  };
}

/** The date as a header carries it, from "YYYY-MM-DD". */
export const debitDateField = monthDayOf;

/** The file's bytes: header, data records, trailer, end, each 120 bytes + CR LF in Shift_JIS. */
export function encodeDebitFile(file: DebitFile, answered = false): Buffer {
  return encodeRecords([
    encodeFields(debitHeaderLayout, consignorFields(file.consignor, 91, file.debitDate)),
    ...file.records.map((record) => encodeDebitRecord(record)),
    encodeFields(debitTrailerLayout, { dataType: 8, ...debitTotals(file.records, answered) }),
    encodeFields(endLayout, { dataType: 9 }),
  ]);
}

export function encodeDebitRecord(record: DebitRecord): string {
  return encodeFields(debitDataLayout, { dataType: 2, ...record });
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

/**
 * A header, data records, a trailer and an end record, in that order and nothing after; the
 * values of each by its layout.
 */
export function splitFile(
  bytes: Uint8Array,
  layouts: { header: Layout; data: Layout; trailer: Layout },
  kind: string,
):
  | { ok: true; header: Record<string, string>; data: Record<string, string>[]; trailer: Record<string, string> }
  | {
      ok: false;
      reason: string;
    } {
  const decoded = decodeRecords(bytes);
  if (!decoded.ok) return decoded;
  const records = decoded.records;
  if (records.length < 3)
    return { ok: false, reason: "the file is truncated: it needs a header, a trailer and an end" };
  const typeOf = (index: number) => records[index][0];
  if (typeOf(0) !== "1") return { ok: false, reason: "record 1 is not a header (データ区分 1)" };
  const last = records.length - 1;
  if (typeOf(last) !== "9") return { ok: false, reason: "the file is truncated: its last record is not an end (9)" };
  if (typeOf(last - 1) !== "8") return { ok: false, reason: `record ${last} is not a trailer (データ区分 8)` };
  for (let index = 1; index < last - 1; index++)
    if (typeOf(index) !== "2") return { ok: false, reason: `record ${index + 1} is not a data record (データ区分 2)` };
  const header = decodeFields(layouts.header, records[0]);
  if (!header.ok) return { ok: false, reason: `header: ${header.reason}` };
  if (header.values.kind !== kind)
    return { ok: false, reason: `the header's 種別コード is ${header.values.kind}, not ${kind}` };
  const data: Record<string, string>[] = [];
  for (let index = 1; index < last - 1; index++) {
    const record = decodeFields(layouts.data, records[index]);
    if (!record.ok) return { ok: false, reason: `record ${index + 1}: ${record.reason}` };
    data.push(record.values);
  }
  const trailer = decodeFields(layouts.trailer, records[last - 1]);
  if (!trailer.ok) return { ok: false, reason: `trailer: ${trailer.reason}` };
  const end = decodeFields(endLayout, records[last]);
  if (!end.ok) return { ok: false, reason: `end: ${end.reason}` };
  return { ok: true, header: header.values, data, trailer: trailer.values };
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

/**
 * Reads a request (`answered` false) or result file whole. Refused: anything `splitFile` refuses, and a trailer
 * whose counts and amounts differ from its records (and, in a result, from their results).
 */
export function decodeDebitFile(bytes: Uint8Array, answered: boolean): Decoded<DebitFile> {
  const split = splitFile(
    bytes,
    { header: debitHeaderLayout, data: debitDataLayout, trailer: debitTrailerLayout },
    "91",
  );
  if (!split.ok) return split;
  const records: DebitRecord[] = split.data.map((values) => ({
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
  }));
  const expected = debitTotals(records, answered);
  for (const [name, value] of Object.entries(expected)) {
    if (Number(split.trailer[name]) !== value)
      return {
        ok: false,
        reason: `the trailer's ${name} is ${Number(split.trailer[name])}, the records make ${value}`,
      };
  }
  return { ok: true, file: { consignor: consignorOf(split.header), debitDate: split.header.debitDate, records } };
}

/** The 振替結果コード a bank may answer. */
export const debitResultCodes: readonly number[] = [0, 1, 2, 3, 4, 8, 9];

/**
 * Checks a decoded result file against the request we sent: the same consignor and debit date,
 * every record we sent answered once (customer number, amount, account), no record we did not
 * send, and known result codes. The reason, or undefined when it can be applied.
 */
export function resultMismatch(sent: DebitFile, result: DebitFile): string | undefined {
  if (result.consignor.code !== sent.consignor.code)
    return `委託者コード ${result.consignor.code} is not ${sent.consignor.code}`;
  if (result.debitDate !== sent.debitDate) return `the debit date ${result.debitDate} is not ${sent.debitDate}`;
  const requested = new Map(sent.records.map((record) => [record.customerNumber, record]));
  const seen = new Set<string>();
  for (const record of result.records) {
    const ours = requested.get(record.customerNumber);
    if (!ours) return `customer number ${record.customerNumber} was not in the request`;
    if (seen.has(record.customerNumber)) return `customer number ${record.customerNumber} is answered twice`;
    seen.add(record.customerNumber);
    if (record.amount !== ours.amount)
      return `customer number ${record.customerNumber}: amount ${record.amount} is not ${ours.amount}`;
    if (
      record.bankCode !== ours.bankCode ||
      record.branchCode !== ours.branchCode ||
      record.accountNumber !== ours.accountNumber
    )
      return `customer number ${record.customerNumber}: the account is not the one requested`;
    if (!debitResultCodes.includes(record.resultCode))
      return `customer number ${record.customerNumber}: 振替結果コード ${record.resultCode} is unknown`;
  }
  if (seen.size !== requested.size) return `${requested.size - seen.size} requested debits are not answered`;
  return undefined;
}
