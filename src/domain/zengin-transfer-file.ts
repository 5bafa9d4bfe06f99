import {
  type Consignor,
  consignorFields,
  consignorOf,
  type Decoded,
  debitHeaderLayout,
  endRecord,
  type OpenedBatch,
  type OpenedFile,
  openBatches,
  openFile,
  readWhole,
} from "./zengin-debit-file.js";
import { encodeFields, encodeRecords, type Layout } from "./zengin-record.js";

/**
 * The Zengin credit-transfer file (総合振込, 種別コード 21) that pays refunds back from the
 * consignor's account to the customers' accounts. The header has the debit file's layout (振込依頼人
 * in place of 委託者, 振込指定日 in place of 引落日).
 *
 * The layout has no result field. furikomi's convention with the bank (docs/operations/zengin.md):
 * the bank answers with the same file, every data record returned, the first byte of its last
 * blank field (ダミー C7) set to the transfer's result, 0 transferred or 1–9 not transferred
 * (the 振替結果コード meanings), so a refund settles or fails from the file as a debit does.
 */
export const transferDataLayout: Layout = [
  ["dataType", "N", 1],
  ["bankCode", "N", 4],
  ["bankName", "C", 15],
  ["branchCode", "N", 3],
  ["branchName", "C", 15],
  ["clearingHouse", "N", 4],
  ["accountType", "N", 1],
  ["accountNumber", "N", 7],
  ["payee", "C", 30],
  ["amount", "N", 10],
  ["newCode", "N", 1],
  ["customerCode1", "N", 10],
  ["customerCode2", "N", 10],
  ["transferType", "N", 1],
  ["ediMark", "C", 1],
  ["resultCode", "C", 1],
  ["dummy", "C", 6],
];

export const transferTrailerLayout: Layout = [
  ["dataType", "N", 1],
  ["count", "N", 6],
  ["total", "N", 12],
  ["dummy", "C", 101],
];

export interface TransferRecord {
  readonly bankCode: string;
  readonly bankName: string;
  readonly branchCode: string;
  readonly branchName: string;
  /** 1 普通, 2 当座, 4 貯蓄, 9 その他. */
  readonly accountType: number;
  readonly accountNumber: string;
  /** 受取人名, half-width kana. */
  readonly payee: string;
  readonly amount: number;
  /** 20 digits that identify the refund: 顧客コード1 and 顧客コード2. */
  readonly customerNumber: string;
  /** Blank in a request; the result (0 transferred, 1–9 not) in the bank's answer. */
  readonly resultCode: number | undefined;
}

export interface TransferFile {
  readonly requester: Consignor;
  /** MMDD of the transfer date (振込指定日). */
  readonly transferDate: string;
  readonly records: readonly TransferRecord[];
}

/** 振込指定区分 7: 電信 (telegraphic, same day). */
const telegraphic = 7;

export function encodeTransferFile(file: TransferFile): Buffer {
  return encodeRecords([
    transferHeaderRecord(file.requester, file.transferDate),
    ...file.records.map(encodeTransferRecord),
    transferTrailerRecord(
      file.records.length,
      file.records.reduce((sum, record) => sum + record.amount, 0),
    ),
    endRecord(),
  ]);
}

export function transferHeaderRecord(requester: Consignor, transferDate: string): string {
  return encodeFields(debitHeaderLayout, consignorFields(requester, 21, transferDate));
}

export function encodeTransferRecord(record: TransferRecord): string {
  return encodeFields(transferDataLayout, {
    dataType: 2,
    ...record,
    clearingHouse: 0,
    newCode: 0,
    customerCode1: record.customerNumber.slice(0, 10),
    customerCode2: record.customerNumber.slice(10),
    transferType: telegraphic,
    ediMark: "",
    resultCode: record.resultCode === undefined ? "" : String(record.resultCode),
  });
}

export function transferTrailerRecord(count: number, total: number): string {
  return encodeFields(transferTrailerLayout, { dataType: 8, count, total });
}

/** A request or answer of one batch, opened; its trailer compared with its records as they are read. */
export function openTransferFile(bytes: Uint8Array): Decoded<OpenedFile<TransferRecord>> {
  const opened = openFile(bytes, transferLayouts, "21");
  return opened.ok ? { ok: true, file: transferBatchOf(opened) } : opened;
}

/** Every batch of an answer (or request), opened as `openTransferFile` opens one. */
export function openTransferBatches(bytes: Uint8Array): Decoded<OpenedFile<TransferRecord>[]> {
  const opened = openBatches(bytes, transferLayouts, "21");
  return opened.ok ? { ok: true, file: opened.batches.map(transferBatchOf) } : opened;
}

const transferLayouts = { header: debitHeaderLayout, data: transferDataLayout, trailer: transferTrailerLayout };

function transferBatchOf(opened: OpenedBatch): OpenedFile<TransferRecord> {
  return {
    consignor: consignorOf(opened.header),
    date: opened.header.debitDate,
    count: opened.count,
    record(index) {
      const decoded = opened.data(index);
      if (!decoded.ok) return decoded;
      const values = decoded.record;
      if (!/^\d?$/.test(values.resultCode))
        return {
          ok: false,
          reason: `record ${opened.recordNumber(index)} (customer code ${values.customerCode1}${values.customerCode2}): result "${values.resultCode}" is unknown`,
        };
      return {
        ok: true,
        record: {
          bankCode: values.bankCode,
          bankName: values.bankName,
          branchCode: values.branchCode,
          branchName: values.branchName,
          accountType: Number(values.accountType),
          accountNumber: values.accountNumber,
          payee: values.payee,
          amount: Number(values.amount),
          customerNumber: values.customerCode1 + values.customerCode2,
          resultCode: values.resultCode === "" ? undefined : Number(values.resultCode),
        },
      };
    },
    tally() {
      let count = 0;
      let total = 0;
      return {
        add(record: TransferRecord) {
          count++;
          total += record.amount;
        },
        mismatch() {
          if (Number(opened.trailer.count) !== count)
            return `the trailer's count is ${Number(opened.trailer.count)}, the file has ${count}`;
          if (Number(opened.trailer.total) !== total)
            return `the trailer's total is ${Number(opened.trailer.total)}, the records make ${total}`;
          return undefined;
        },
      };
    },
  };
}

export function decodeTransferFile(bytes: Uint8Array): Decoded<TransferFile> {
  const opened = openTransferFile(bytes);
  if (!opened.ok) return opened;
  const read = readWhole(opened.file);
  if (!read.ok) return read;
  return {
    ok: true,
    file: { requester: opened.file.consignor, transferDate: opened.file.date, records: read.records },
  };
}
