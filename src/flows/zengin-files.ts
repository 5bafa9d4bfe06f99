import { createHash, type Hash } from "node:crypto";
import { AsyncStatus, ChargeStatus, ContractStatus, EventType } from "../../gen/payments/v1/enums_pb.js";
import { type AsyncRequestRecord, isAsyncRequestFinal, transitionAsyncRequest } from "../domain/async-request.js";
import { transitionCharge } from "../domain/charge.js";
import type { ChargeRecord } from "../domain/records.js";
import { chargeEventContent } from "../domain/webhook-content.js";
import { saveAsyncRequestStatuses } from "../storage/async-requests.js";
import { saveChargeStatuses } from "../storage/charges.js";
import { recordEvents } from "../storage/events.js";
import { findMerchant } from "../storage/merchants.js";
import { calendarOf } from "./bank-rules.js";
import { transitionContract } from "../domain/contract.js";
import {
  type Consignor,
  type DebitRecord,
  debitHeaderRecord,
  debitTrailerRecord,
  decodeDebitFile,
  encodeDebitRecord,
  endRecord,
  type OpenedFile,
  openDebitBatches,
} from "../domain/zengin-debit-file.js";
import { encodeRecords, monthDayOf } from "../domain/zengin-record.js";
import { type AnsweredRecord, type RequestedRecord, ResultCheck } from "../domain/zengin-result-check.js";
import { zenginFailureMessage, zenginResultOfCode } from "../domain/zengin-result.js";
import { debitDateOf, fileCutoffOf, resultDeadlineOf } from "../domain/zengin-schedule.js";
import {
  decodeTransferFile,
  encodeTransferRecord,
  openTransferBatches,
  transferHeaderRecord,
  transferTrailerRecord,
} from "../domain/zengin-transfer-file.js";
import { timetableOf } from "../ports/zengin-bank.js";
import { answerRequestFiles } from "../ports/zengin-simulated-bank.js";
import { createZenginTransport, keepLocally, readZenginFile, type ZenginTransport } from "../ports/zengin-transport.js";
import { basename } from "node:path";
import { lockContract, saveContractStatus } from "../storage/contracts.js";
import { findRefund } from "../storage/refunds.js";
import type { ZenginConsignorTable, ZenginFileTable } from "../storage/schema.js";
import type { Tx } from "../storage/transactor.js";
import {
  answerItems,
  chargesOfFile,
  fileTotals,
  findConsignor,
  findConsignorByCode,
  findIncomingBySha,
  findSentFile,
  fileItems,
  filesInState,
  insertFile,
  itemAccountKeys,
  itemsByCustomerNumber,
  itemsOfFilePage,
  listFiles,
  lockFile,
  rescheduleItems,
  saveResultCodes,
  saveSimulatedResultMinutes,
  scheduledGroups,
  updateFile,
  type ZenginItem,
  type ZenginItemKind,
} from "../storage/zengin.js";
import type { FlowContext } from "./flow-context.js";
import { recordRefundVerdict } from "./refund.js";

/** What the cycle works with: the transport, ZENGIN_DIR for the kept copies, and who hears of a quarantine. */
export interface ZenginExchange {
  readonly transport: ZenginTransport;
  readonly dir: string;
  onQuarantine(file: { name: string; reason: string }): void;
  /** The simulated bank (ZENGIN_SIMULATED_BANK=on): answers request files whose time has come. */
  readonly simulatedBank?: (now: Date) => Promise<unknown>;
}

export interface ZenginCycleReport {
  written: string[];
  imported: string[];
  quarantined: { name: string; reason: string }[];
}

const kinds: Readonly<Record<string, ZenginItemKind>> = { "91": "zengin_debits", "21": "zengin_transfers" };

/**
 * One turn of the file exchange (`zengin run`, and the "zengin-cycle" job every minute): write
 * the files whose cutoff has passed, let the simulated bank answer, and import what came back.
 */
export async function runZenginCycle(ctx: FlowContext, exchange: ZenginExchange): Promise<ZenginCycleReport> {
  const written = await writeDueFiles(ctx, exchange);
  await exchange.simulatedBank?.(ctx.clock.now());
  const report: ZenginCycleReport = { written, imported: [], quarantined: [] };
  for (const name of await exchange.transport.received()) {
    const outcome = await importResultFile(ctx, exchange, name, await exchange.transport.read(name));
    if (outcome.ok) report.imported.push(name);
    else report.quarantined.push({ name, reason: outcome.reason });
    await exchange.transport.remove(name);
  }
  return report;
}

/** The names of the request files written (or finished after a crash) in this turn. */
async function writeDueFiles(ctx: FlowContext, exchange: ZenginExchange): Promise<string[]> {
  const now = ctx.clock.now();
  const calendar = calendarOf(ctx.config);
  const timetable = timetableOf(ctx.config);
  const written: string[] = [];
  for (const [kind, table] of Object.entries(kinds)) {
    for (const group of await scheduledGroups(ctx.tx.db, table)) {
      if (fileCutoffOf(group.date, timetable, calendar) > now) continue;
      await ctx.tx.write(async (trx) => {
        const consignor = await findConsignor(trx, group.merchant_id);
        if (!consignor) return;
        const id = fileIdOf(kind, group.merchant_id, group.date);
        const created = await insertFile(trx, {
          id,
          merchant_id: group.merchant_id,
          kind,
          direction: "out",
          date: group.date,
          name: fileNameOf(kind, consignor.code, group.date),
          state: "writing",
          answers: null,
          record_count: 0,
          total_amount: 0,
          done_count: 0,
          done_amount: 0,
          failed_count: 0,
          failed_amount: 0,
          sha256: "",
          reason: "",
          consignor_json: JSON.stringify(consignorOf(consignor)),
          due_at: resultDeadlineOf(group.date, timetable, calendar).toISOString(),
          created_at: now.toISOString(),
          updated_at: now.toISOString(),
        });
        if (!created) {
          // Scheduled just as its file was written: the next debit date takes it.
          const to = debitDateOf(now, kind === "91" ? timetable : { ...timetable, leadDays: 1 }, calendar);
          await rescheduleItems(trx, table, {
            merchantId: group.merchant_id,
            from: group.date,
            to,
            now: now.toISOString(),
          });
          return;
        }
        await fileItems(trx, table, {
          merchantId: group.merchant_id,
          date: group.date,
          fileId: id,
          now: now.toISOString(),
        });
        await updateFile(trx, id, await fileTotals(trx, table, id));
      });
    }
  }
  // Files recorded but not yet sent, this turn's and any a crash left: written again, same bytes.
  for (const file of await filesInState(ctx.tx.db, "out", "writing")) {
    const hash = createHash("sha256");
    await exchange.transport.send(file.name, hashed(requestChunks(ctx.tx.db, file), hash));
    await ctx.tx.write((trx) =>
      updateFile(trx, file.id, {
        state: "sent",
        sha256: hash.digest("hex"),
        updated_at: ctx.clock.now().toISOString(),
      }),
    );
    written.push(file.name);
  }
  return written;
}

function fileIdOf(kind: string, merchantId: string, date: string): string {
  return `zf-${kind}-${merchantId}-${date}`;
}

/** Z91_<consignor code>_<YYYYMMDD>.txt: what the bank receives. */
function fileNameOf(kind: string, consignorCode: string, date: string): string {
  return `Z${kind}_${consignorCode}_${date.replaceAll("-", "")}.txt`;
}

function sha256Of(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Items read and encoded at a time when a request file is written. */
const pageSize = 2000;

/**
 * The request file's bytes, from what is recorded, a page of items at a time: the same every
 * time it is asked for, and never the whole file's records in memory at once.
 */
async function* requestChunks(db: Tx, file: ZenginFileTable): AsyncGenerator<Buffer> {
  const consignor = JSON.parse(file.consignor_json) as Consignor;
  const date = monthDayOf(file.date);
  const debits = file.kind === "91";
  yield encodeRecords([debits ? debitHeaderRecord(consignor, date) : transferHeaderRecord(consignor, date)]);
  let after = "";
  for (;;) {
    const page = await itemsOfFilePage(db, kinds[file.kind], file.id, after, pageSize);
    if (page.length === 0) break;
    yield encodeRecords(
      page.map((item) =>
        debits
          ? encodeDebitRecord(debitRecordOf(item))
          : encodeTransferRecord({ ...debitRecordOf(item), payee: item.account.accountHolder, resultCode: undefined }),
      ),
    );
    after = page[page.length - 1].customer_number ?? "";
  }
  const count = file.record_count;
  const total = Number(file.total_amount);
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

function consignorOf(row: ZenginConsignorTable): Consignor {
  return {
    code: row.code,
    name: row.name,
    bankCode: row.bank_code,
    bankName: row.bank_name,
    branchCode: row.branch_code,
    branchName: row.branch_name,
    accountType: row.account_type,
    accountNumber: row.account_number,
  };
}

function debitRecordOf(item: ZenginItem): DebitRecord {
  return {
    bankCode: item.account.bankCode,
    bankName: "",
    branchCode: item.account.branchCode,
    branchName: "",
    accountType: item.account.accountType,
    accountNumber: item.account.accountNumber,
    holder: item.account.accountHolder,
    amount: Number(item.amount),
    newCode: item.new_code,
    customerNumber: item.customer_number ?? "",
    resultCode: 0,
  };
}

type ImportOutcome = { ok: true; applied: boolean } | { ok: false; reason: string };

/**
 * One result file, validated whole before anything is applied, then applied in one transaction
 * and kept in archive/ — or kept in quarantine/ with its reason, nothing applied. The same bytes
 * again (a crash after the commit, an operator importing twice) are archived and change nothing.
 */
export async function importResultFile(
  ctx: FlowContext,
  exchange: ZenginExchange,
  name: string,
  bytes: Buffer,
): Promise<ImportOutcome> {
  const sha256 = sha256Of(bytes);
  const known = await findIncomingBySha(ctx.tx.db, sha256);
  if (known?.state === "archived") {
    await keepLocally(exchange.dir, "archive", name, bytes);
    return { ok: true, applied: false };
  }
  const checked = await checkResultFile(ctx.tx.db, bytes);
  const now = ctx.clock.now();
  const incoming = (
    state: string,
    reason: string,
    merchantId = "",
    kind = "",
    date = "",
    answers: string | null = null,
  ) => ({
    id: `zi-${sha256.slice(0, 32)}`,
    merchant_id: merchantId,
    kind,
    direction: "in",
    date,
    name,
    state,
    answers,
    record_count: 0,
    total_amount: 0,
    done_count: 0,
    done_amount: 0,
    failed_count: 0,
    failed_amount: 0,
    sha256,
    reason,
    consignor_json: "",
    due_at: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  });
  // Every batch of the file (docs/operations/zengin.md#result-files-in-the-wild) applied in one
  // transaction: all of them, or none when one of the files they answer is no longer waiting.
  const applied = checked.ok
    ? await ctx.tx.write(async (trx) => {
        const locked = [];
        for (const batch of checked.batches) {
          const sent = await lockFile(ctx.tx, trx, batch.sent.id);
          if (sent?.state !== "sent") return `the results of ${batch.sent.name} were already imported`;
          locked.push({ sent, file: batch.file });
        }
        for (const [index, { sent, file }] of locked.entries()) {
          const totals = await applyResults(ctx, trx, sent, file, now);
          await updateFile(trx, sent.id, { state: "answered", updated_at: now.toISOString(), ...totals });
          const row = incoming("archived", "", sent.merchant_id, sent.kind, sent.date, sent.id);
          await insertFile(trx, {
            ...row,
            id: index === 0 ? row.id : `${row.id}-${index + 1}`,
            ...totals,
            record_count: totals.done_count + totals.failed_count,
            total_amount: totals.done_amount + totals.failed_amount,
          });
        }
        return undefined;
      })
    : checked.reason;
  if (applied === undefined) {
    ctx.wake("events");
    await keepLocally(exchange.dir, "archive", name, bytes);
    return { ok: true, applied: true };
  }
  // The merchant (and the file it answers) when known, so the merchant's dashboard shows it too.
  const sentFile = checked.ok ? checked.batches[0].sent : checked.sent;
  const merchantId = checked.ok ? sentFile?.merchant_id : checked.merchantId;
  await ctx.tx.write((trx) =>
    insertFile(trx, incoming("quarantined", applied, merchantId, sentFile?.kind, sentFile?.date, sentFile?.id ?? null)),
  );
  await keepLocally(exchange.dir, "quarantine", name, bytes, applied);
  exchange.onQuarantine({ name, reason: applied });
  return { ok: false, reason: applied };
}

/** A result file of either kind, opened: its records are read a batch at a time. */
type ResultFile = OpenedFile<AnsweredRecord>;

/** A file whose batches can be applied, or why not (with the merchant and the sent file when they are known). */
type Checked =
  | { ok: true; batches: { sent: ZenginFileTable; file: ResultFile }[] }
  | { ok: false; reason: string; merchantId?: string; sent?: ZenginFileTable };

/** Records of a result file looked up, checked and applied at a time. */
const batchSize = 1000;

/**
 * Decodes the file and matches each of its batches (header–trailer groups) to the request file
 * we sent (docs/operations/zengin.md#the-cycle); the first batch that cannot be applied refuses it.
 */
async function checkResultFile(db: Tx, bytes: Buffer): Promise<Checked> {
  const kind = bytes.subarray(1, 3).toString("latin1");
  if (kind !== "91" && kind !== "21") return { ok: false, reason: `not a 種別 91 or 21 file (header "${kind}")` };
  const opened = kind === "91" ? openDebitBatches(bytes, true) : openTransferBatches(bytes);
  if (!opened.ok) return opened;
  const batches: { sent: ZenginFileTable; file: ResultFile }[] = [];
  for (const [index, file] of opened.file.entries()) {
    const checked = await checkBatch(db, kind, file);
    const named = (reason: string) =>
      opened.file.length > 1
        ? `batch ${index + 1} of ${opened.file.length} (consignor ${file.consignor.code}, ${file.date}): ${reason}`
        : reason;
    if (!checked.ok) return { ...checked, reason: named(checked.reason) };
    const { sent } = checked;
    if (batches.some((batch) => batch.sent.id === sent.id))
      return { ok: false, reason: named(`it answers ${sent.name} again`), merchantId: sent.merchant_id, sent };
    batches.push(checked);
  }
  return { ok: true, batches };
}

/** One batch matched to the request file we sent, and checked against it record by record. */
async function checkBatch(
  db: Tx,
  kind: string,
  file: ResultFile,
): Promise<{ ok: true; sent: ZenginFileTable; file: ResultFile } | Extract<Checked, { ok: false }>> {
  const consignor = await findConsignorByCode(db, file.consignor.code);
  if (!consignor) return { ok: false, reason: `no merchant has the consignor code ${file.consignor.code}` };
  const sent = await findSentFile(db, consignor.merchant_id, kind, file.date);
  if (!sent)
    return {
      ok: false,
      reason: `we sent no 種別 ${kind} file for consignor ${file.consignor.code} dated ${file.date}`,
      merchantId: consignor.merchant_id,
    };
  if (sent.state === "answered")
    return {
      ok: false,
      reason: `duplicate: the results of ${sent.name} were already imported`,
      merchantId: sent.merchant_id,
      sent,
    };
  const mismatch = await mismatchOf(db, sent, file);
  if (mismatch) return { ok: false, reason: mismatch, merchantId: sent.merchant_id, sent };
  return { ok: true, sent, file };
}

/**
 * Reads the whole file once, a batch at a time: each record decoded, looked up among the items
 * of the file we sent by its customer number (an index), checked, and added to the totals the
 * trailer must equal. Nothing is kept but the totals and which records were answered.
 */
async function mismatchOf(db: Tx, sent: ZenginFileTable, file: ResultFile): Promise<string | undefined> {
  // Each answer's account compared by its keyed hash: the items' accounts stay sealed.
  const check = new ResultCheck(sent.kind === "91" ? "91" : "21", sent.record_count, itemAccountKeys);
  const tally = file.tally();
  for (const batch of batchesOf(file)) {
    if (!batch.ok) return batch.reason;
    const numbers = batch.records.map((record) => record.customerNumber);
    const items = await itemsByCustomerNumber(db, kinds[sent.kind], sent.id, numbers);
    const ours = new Map(items.map((item) => [item.customer_number, requestedOf(item)]));
    for (const record of batch.records) {
      const reason = check.record(ours.get(record.customerNumber), record);
      if (reason) return reason;
      tally.add(record);
    }
  }
  return tally.mismatch() ?? check.finish();
}

function requestedOf(item: Awaited<ReturnType<typeof itemsByCustomerNumber>>[number]): RequestedRecord {
  return {
    customerNumber: item.customer_number ?? "",
    accountKey: item.account_key,
    amount: Number(item.amount),
  };
}

/** The file's data records, `batchSize` at a time, or the reason one cannot be decoded. */
function* batchesOf<R>(file: OpenedFile<R>): Generator<{ ok: true; records: R[] } | { ok: false; reason: string }> {
  for (let start = 0; start < file.count; start += batchSize) {
    const records: R[] = [];
    for (let index = start; index < Math.min(start + batchSize, file.count); index++) {
      const decoded = file.record(index);
      if (!decoded.ok) {
        yield decoded;
        return;
      }
      records.push(decoded.record);
    }
    yield { ok: true, records };
  }
}

/** Settles every charge or refund of the checked file, a batch at a time; returns the file's totals. */
async function applyResults(ctx: FlowContext, trx: Tx, sent: ZenginFileTable, file: ResultFile, now: Date) {
  const table = kinds[sent.kind];
  const totals = { done_count: 0, done_amount: 0, failed_count: 0, failed_amount: 0 };
  const merchantName = (await findMerchant(trx, sent.merchant_id))?.name ?? "";
  await answerItems(trx, table, sent.id, now.toISOString());
  for (const batch of batchesOf(file)) {
    if (!batch.ok) throw new Error(`${sent.name}: ${batch.reason}, after it was checked`);
    const failures = new Map<number, string[]>();
    for (const { customerNumber, resultCode, amount } of batch.records) {
      if (!resultCode) {
        totals.done_count++;
        totals.done_amount += amount;
      } else {
        totals.failed_count++;
        totals.failed_amount += amount;
        const numbers = failures.get(resultCode) ?? [];
        numbers.push(customerNumber);
        failures.set(resultCode, numbers);
      }
    }
    await saveResultCodes(trx, table, sent.id, failures);
    if (table === "zengin_debits") await settleDebits(ctx, trx, sent.id, batch.records, merchantName, now);
    else await settleTransfers(ctx, trx, sent.id, batch.records, now);
  }
  return totals;
}

/** Each refund of a batch of a transfer file settles or fails (refund.ts). */
async function settleTransfers(
  ctx: FlowContext,
  trx: Tx,
  fileId: string,
  records: readonly AnsweredRecord[],
  now: Date,
): Promise<void> {
  const items = new Map(
    (
      await itemsByCustomerNumber(
        trx,
        "zengin_transfers",
        fileId,
        records.map((record) => record.customerNumber),
      )
    ).map((item) => [item.customer_number, item]),
  );
  for (const { customerNumber, resultCode } of records) {
    const refund = await findRefund(trx, items.get(customerNumber)?.reference ?? "");
    const result = zenginResultOfCode(resultCode ?? 0);
    if (refund)
      await recordRefundVerdict(
        ctx,
        trx,
        refund,
        result
          ? {
              ok: false,
              rootCause: `the bank could not make the transfer (Zengin result ${result.code}: ${result.meaning}, ${result.japanese})`,
            }
          : { ok: true },
        now,
      );
  }
}

/**
 * The charges of a batch of a debit file settled together, as off-session.ts settles one
 * (charge, its async request, its event), in a few statements per batch: a file holds up to
 * hundreds of thousands. Results 3 and 4 also deactivate the contract.
 */
async function settleDebits(
  ctx: FlowContext,
  trx: Tx,
  fileId: string,
  records: readonly AnsweredRecord[],
  merchantName: string,
  now: Date,
): Promise<void> {
  const charges = new Map(
    (
      await chargesOfFile(
        trx,
        fileId,
        records.map((record) => record.customerNumber),
      )
    ).map((row) => [row.customerNumber, row]),
  );
  const settledCharges: ChargeRecord[] = [];
  const settledRequests: AsyncRequestRecord[] = [];
  const deactivate: string[] = [];
  for (const { customerNumber, resultCode } of records) {
    const found = charges.get(customerNumber);
    if (found?.charge.status !== ChargeStatus.PENDING) continue;
    const { charge, request } = found;
    const result = zenginResultOfCode(resultCode ?? 0);
    const failure = result && { errorType: result.errorType, message: zenginFailureMessage(result) };
    settledCharges.push(transitionCharge(charge, failure ? ChargeStatus.FAILURE : ChargeStatus.SUCCESS, now, failure));
    if (request && !isAsyncRequestFinal(request.status)) {
      const running =
        request.status === AsyncStatus.RUNNING ? request : transitionAsyncRequest(request, AsyncStatus.RUNNING, now);
      settledRequests.push(
        transitionAsyncRequest(running, failure ? AsyncStatus.FAILED : AsyncStatus.SUCCEEDED, now, { failure }),
      );
    }
    if (result?.deactivates && charge.contractId) deactivate.push(charge.contractId);
  }
  await saveChargeStatuses(trx, settledCharges);
  await saveAsyncRequestStatuses(trx, settledRequests);
  await recordEvents(
    trx,
    settledCharges.map((charge) => ({
      merchantId: charge.merchantId,
      type: charge.status === ChargeStatus.SUCCESS ? EventType.CHARGE_SUCCESS : EventType.CHARGE_FAIL,
      chargeId: charge.id,
      content: chargeEventContent(charge, merchantName),
      now,
    })),
  );
  for (const contractId of deactivate) {
    const contract = await lockContract(ctx.tx, trx, contractId);
    if (contract?.status === ContractStatus.ACTIVATED)
      await saveContractStatus(trx, transitionContract(contract, ContractStatus.DEACTIVATED, now));
  }
}

/** How often the cycle looks for due files and results when nothing else asks. */
const cycleIntervalMs = 60_000;

/** The "zengin-cycle" job: one turn, then again in a minute. */
export async function runZenginCycleJob(ctx: FlowContext, exchange: ZenginExchange): Promise<{ retryAt: Date }> {
  await runZenginCycle(ctx, exchange);
  return { retryAt: new Date(ctx.clock.now().getTime() + cycleIntervalMs) };
}

/** The exchange of a configuration: its transport, and the simulated bank when it is on. */
export function zenginExchangeOf(ctx: FlowContext, onQuarantine: ZenginExchange["onQuarantine"]): ZenginExchange {
  const { zengin } = ctx.config;
  return {
    transport: createZenginTransport(zengin),
    dir: zengin.dir,
    onQuarantine,
    simulatedBank: zengin.simulatedBank ? (now) => answerRequestFiles(ctx.tx, zengin.dir, now) : undefined,
  };
}

/** `zengin files list`: every file sent and received, newest first. */
export async function listZenginFiles(ctx: FlowContext) {
  return (await listFiles(ctx.tx.db)).map((file) => ({
    name: file.name,
    merchant_id: file.merchant_id,
    kind: file.kind,
    direction: file.direction,
    date: file.date,
    state: file.state,
    records: file.record_count,
    total: Number(file.total_amount),
    done: { count: file.done_count, amount: Number(file.done_amount) },
    failed: { count: file.failed_count, amount: Number(file.failed_amount) },
    reason: file.reason,
    results_due_at: file.due_at,
  }));
}

/** `zengin files show FILE`: the decoded records of a file in ZENGIN_DIR's folders, or at a path. */
export async function showZenginFile(dir: string, file: string) {
  const bytes = await readZenginFile(dir, file);
  const kind = bytes.subarray(1, 3).toString("latin1");
  const answered = /^R/.test(basename(file));
  const decoded = kind === "21" ? decodeTransferFile(bytes) : decodeDebitFile(bytes, answered);
  if (!decoded.ok) return { file, valid: false, reason: decoded.reason };
  return { file, valid: true, kind, ...decoded.file };
}

/** The dashboard's view: the merchant's files, each debit date reconciled, and the alerts. */
export async function zenginFilesOfMerchant(ctx: FlowContext, merchantId: string) {
  const now = ctx.clock.now().toISOString();
  const files = (await listFiles(ctx.tx.db, merchantId)).map((file) => ({
    ...file,
    overdue: file.direction === "out" && file.state === "sent" && file.due_at !== null && file.due_at < now,
  }));
  const debitDates = files
    .filter((file) => file.direction === "out" && file.kind === "91")
    .map((file) => {
      const answered = file.done_count + file.failed_count;
      const results = Number(file.done_amount) + Number(file.failed_amount);
      return {
        date: file.date,
        requestedCount: file.record_count,
        requestedAmount: Number(file.total_amount),
        answeredCount: answered,
        debitedAmount: Number(file.done_amount),
        failedAmount: Number(file.failed_amount),
        reconciled:
          file.state === "answered" && answered === file.record_count && results === Number(file.total_amount),
      };
    });
  return {
    files,
    debitDates,
    quarantined: files.filter((file) => file.state === "quarantined").length,
    overdue: files.filter((file) => file.overdue).length,
  };
}

/** SandboxService.ConfigureZenginBank: when the simulated bank answers the merchant's files. */
export async function configureSimulatedZenginBank(ctx: FlowContext, merchantId: string, minutes: number) {
  await ctx.tx.write((trx) => saveSimulatedResultMinutes(trx, merchantId, minutes));
  return minutes;
}
