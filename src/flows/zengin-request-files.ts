import { createHash, type Hash } from "node:crypto";
import {
  type Consignor,
  type DebitRecord,
  debitHeaderRecord,
  debitTrailerRecord,
  encodeDebitRecord,
  endRecord,
} from "../domain/zengin-debit-file.js";
import { encodeRecords, monthDayOf } from "../domain/zengin-record.js";
import {
  type ConsignorSettings,
  itemKindOf,
  type ZenginFileKind,
  type ZenginFileRecord,
  type ZenginItemRecord,
  zenginFileKinds,
} from "../domain/zengin-records.js";
import { debitDateOf, fileCutoffOf, resultDeadlineOf } from "../domain/zengin-schedule.js";
import { encodeTransferRecord, transferHeaderRecord, transferTrailerRecord } from "../domain/zengin-transfer-file.js";
import { timetableOf } from "../ports/zengin-bank.js";
import type { Tx } from "../storage/transactor.js";
import {
  fileItems,
  fileTotals,
  filesInState,
  findContract,
  insertFile,
  itemsOfFilePage,
  rescheduleItems,
  scheduledGroups,
  updateFile,
} from "../storage/zengin.js";
import { calendarOf } from "./bank-rules.js";
import type { FlowContext } from "./flow-context.js";
import type { ZenginExchange } from "./zengin-exchange.js";
import { limits } from "../domain/limits.js";

/**
 * Request files (docs/operations/zengin.md#the-cycle): each contract's items due for a date are
 * recorded in one file in one transaction, then the file is written from what was recorded —
 * again, with the same bytes, after a crash. Returns the names written (or finished) this turn.
 */
export async function writeDueFiles(ctx: FlowContext, exchange: ZenginExchange): Promise<string[]> {
  for (const kind of zenginFileKinds) await recordDueFiles(ctx, kind);
  // Files recorded but not yet sent, this turn's and any a crash left: written again, same bytes.
  const written: string[] = [];
  for (const file of await filesInState(ctx.tx.db, "out", "writing")) {
    const hash = createHash("sha256");
    await exchange.transport.send(file.name, hashed(requestChunks(ctx.tx.db, file), hash));
    await ctx.tx.write((trx) =>
      updateFile(trx, file.id, { state: "sent", sha256: hash.digest("hex"), updatedAt: ctx.clock.now() }),
    );
    written.push(file.name);
  }
  return written;
}

/**
 * Records the file of every contract and date of this kind whose cutoff has passed, its items in
 * it. A 総合振込 file's header carries the contract's 振込依頼人コード, not its 委託者コード
 * (docs/guide/direct-debit-files.md#contracts); its name carries the 委託者コード, as every file's.
 */
async function recordDueFiles(ctx: FlowContext, kind: ZenginFileKind): Promise<void> {
  const now = ctx.clock.now();
  const calendar = calendarOf(ctx.config);
  const timetable = timetableOf(ctx.config);
  const table = itemKindOf(kind);
  for (const group of await scheduledGroups(ctx.tx.db, table)) {
    if (fileCutoffOf(group.date, timetable, calendar) > now) continue;
    await ctx.tx.write(async (trx) => {
      const contract = await findContract(trx, group.contractCode);
      if (contract?.merchantId !== group.merchantId) return;
      const id = fileIdOf(kind, contract.code, group.date);
      const created = await insertFile(trx, {
        id,
        merchantId: group.merchantId,
        contractCode: contract.code,
        kind,
        direction: "out",
        date: group.date,
        name: fileNameOf(kind, contract.code, group.date),
        state: "writing",
        answers: null,
        ...noTotals,
        sha256: "",
        reason: "",
        consignor: headerConsignorOf(contract, kind),
        dueAt: resultDeadlineOf(group.date, timetable, calendar),
        unexpectedName: false,
        createdAt: now,
        updatedAt: now,
      });
      if (!created) {
        // Scheduled just as its file was written: the next debit date takes it.
        const to = debitDateOf(now, kind === "91" ? timetable : { ...timetable, leadDays: 1 }, calendar);
        await rescheduleItems(trx, table, {
          merchantId: group.merchantId,
          contractCode: contract.code,
          from: group.date,
          to,
          now: now.toISOString(),
        });
        return;
      }
      await fileItems(trx, table, {
        merchantId: group.merchantId,
        contractCode: contract.code,
        date: group.date,
        fileId: id,
        now: now.toISOString(),
      });
      await updateFile(trx, id, await fileTotals(trx, table, id));
    });
  }
}

const noTotals = { recordCount: 0, totalAmount: 0, doneCount: 0, doneAmount: 0, failedCount: 0, failedAmount: 0 };

/** The consignor a file's header carries: a 総合振込 file's code is the 振込依頼人コード. */
function headerConsignorOf(contract: ConsignorSettings, kind: ZenginFileKind): Consignor {
  const { code, name, bankCode, bankName, branchCode, branchName, accountType, accountNumber } = contract;
  const consignor = { code, name, bankCode, bankName, branchCode, branchName, accountType, accountNumber };
  return kind === "91" ? consignor : { ...consignor, code: contract.transferCode };
}

/** One file per contract (委託者コード, unique across merchants), kind and date. */
function fileIdOf(kind: ZenginFileKind, contractCode: string, date: string): string {
  return `zf-${kind}-${contractCode}-${date}`;
}

/** Z91_<consignor code>_<YYYYMMDD>.txt: what the bank receives. */
function fileNameOf(kind: ZenginFileKind, consignorCode: string, date: string): string {
  return `Z${kind}_${consignorCode}_${date.replaceAll("-", "")}.txt`;
}

/** Items read and encoded at a time when a request file is written. */
const pageSize = limits.zenginRequestPageRows;

/**
 * The request file's bytes, from what is recorded, a page of items at a time: the same every
 * time it is asked for, and never the whole file's records in memory at once.
 */
async function* requestChunks(db: Tx, file: ZenginFileRecord): AsyncGenerator<Buffer> {
  if (!file.consignor) throw new Error(`${file.name}: a request file recorded without its consignor`);
  const consignor = file.consignor;
  const date = monthDayOf(file.date);
  const debits = file.kind === "91";
  yield encodeRecords([debits ? debitHeaderRecord(consignor, date) : transferHeaderRecord(consignor, date)]);
  let after = "";
  for (;;) {
    const page = await itemsOfFilePage(db, itemKindOf(file.kind), file.id, after, pageSize);
    if (page.length === 0) break;
    yield encodeRecords(
      page.map((item) =>
        debits
          ? encodeDebitRecord(debitRecordOf(item))
          : encodeTransferRecord({ ...debitRecordOf(item), payee: item.account.accountHolder, resultCode: undefined }),
      ),
    );
    after = page[page.length - 1].customerNumber ?? "";
  }
  const count = file.recordCount;
  const total = file.totalAmount;
  yield encodeRecords([
    debits ? debitTrailerRecord({ ...noResults, count, total }) : transferTrailerRecord(count, total),
    endRecord(),
  ]);
}

const noResults = { debitedCount: 0, debitedAmount: 0, failedCount: 0, failedAmount: 0 };

async function* hashed(chunks: AsyncIterable<Buffer>, hash: Hash): AsyncGenerator<Buffer> {
  for await (const chunk of chunks) {
    hash.update(chunk);
    yield chunk;
  }
}

function debitRecordOf(item: ZenginItemRecord): DebitRecord {
  return {
    bankCode: item.account.bankCode,
    bankName: "",
    branchCode: item.account.branchCode,
    branchName: "",
    accountType: item.account.accountType,
    accountNumber: item.account.accountNumber,
    holder: item.account.accountHolder,
    amount: item.amount,
    newCode: item.newCode,
    customerNumber: item.customerNumber ?? "",
    resultCode: 0,
  };
}
