import { createHash } from "node:crypto";
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
  type DebitFile,
  type DebitRecord,
  decodeDebitFile,
  encodeDebitFile,
  resultMismatch,
} from "../domain/zengin-debit-file.js";
import { monthDayOf } from "../domain/zengin-record.js";
import { zenginFailureMessage, zenginResultOfCode } from "../domain/zengin-result.js";
import { debitDateOf, fileCutoffOf, resultDeadlineOf } from "../domain/zengin-schedule.js";
import {
  decodeTransferFile,
  encodeTransferFile,
  type TransferFile,
  transferResultMismatch,
} from "../domain/zengin-transfer-file.js";
import { timetableOf } from "../ports/zengin-bank.js";
import { answerRequestFiles } from "../ports/zengin-simulated-bank.js";
import { createZenginTransport, keepLocally, readZenginFile, type ZenginTransport } from "../ports/zengin-transport.js";
import { basename } from "node:path";
import { lockContract, saveContractStatus } from "../storage/contracts.js";
import { findRefund } from "../storage/refunds.js";
import type { ZenginConsignorTable, ZenginFileTable, ZenginItemTable } from "../storage/schema.js";
import type { Tx } from "../storage/transactor.js";
import {
  answerItems,
  asyncRequestsOfFile,
  chargesOfFile,
  fileTotals,
  findConsignor,
  findConsignorByCode,
  findIncomingBySha,
  findSentFile,
  fileItems,
  filesInState,
  insertFile,
  itemsOfFile,
  listFiles,
  lockFile,
  rescheduleItems,
  saveSimulatedResultMinutes,
  scheduledGroups,
  updateFile,
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
    const bytes = await requestBytes(ctx.tx.db, file);
    await exchange.transport.send(file.name, bytes);
    await ctx.tx.write((trx) =>
      updateFile(trx, file.id, { state: "sent", sha256: sha256Of(bytes), updated_at: ctx.clock.now().toISOString() }),
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

/** The request file's bytes, from what is recorded: the same every time it is asked for. */
async function requestBytes(db: Tx, file: ZenginFileTable): Promise<Buffer> {
  const sent = await sentFileOf(db, file);
  return "consignor" in sent ? encodeDebitFile(sent) : encodeTransferFile(sent);
}

async function sentFileOf(db: Tx, file: ZenginFileTable): Promise<DebitFile | TransferFile> {
  const consignor = JSON.parse(file.consignor_json) as Consignor;
  const items = await itemsOfFile(db, kinds[file.kind], file.id);
  if (file.kind === "91")
    return { consignor, debitDate: monthDayOf(file.date), records: items.map((item) => debitRecordOf(item)) };
  return {
    requester: consignor,
    transferDate: monthDayOf(file.date),
    records: items.map((item) => ({ ...debitRecordOf(item), payee: item.holder, resultCode: undefined })),
  };
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

function debitRecordOf(item: ZenginItemTable): DebitRecord {
  return {
    bankCode: item.bank_code,
    bankName: "",
    branchCode: item.branch_code,
    branchName: "",
    accountType: item.account_type,
    accountNumber: item.account_number,
    holder: item.holder,
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
  const applied = checked.ok
    ? await ctx.tx.write(async (trx) => {
        const sent = await lockFile(ctx.tx, trx, checked.sent.id);
        if (sent?.state !== "sent") return `the results of ${checked.sent.name} were already imported`;
        const totals = await applyResults(ctx, trx, checked.sent, checked.results, now);
        await updateFile(trx, sent.id, { state: "answered", updated_at: now.toISOString(), ...totals });
        await insertFile(trx, {
          ...incoming("archived", "", sent.merchant_id, sent.kind, sent.date, sent.id),
          ...totals,
          record_count: checked.results.length,
          total_amount: totals.done_amount + totals.failed_amount,
        });
        return undefined;
      })
    : checked.reason;
  if (applied === undefined) {
    ctx.wake("events");
    await keepLocally(exchange.dir, "archive", name, bytes);
    return { ok: true, applied: true };
  }
  // The merchant (and the file it answers) when known, so the merchant's dashboard shows it too.
  const sentFile = checked.sent;
  await ctx.tx.write((trx) =>
    insertFile(
      trx,
      incoming("quarantined", applied, checked.merchantId, sentFile?.kind, sentFile?.date, sentFile?.id ?? null),
    ),
  );
  await keepLocally(exchange.dir, "quarantine", name, bytes, applied);
  exchange.onQuarantine({ name, reason: applied });
  return { ok: false, reason: applied };
}

/** One answered record, checked against the request (so its amount is the one we asked for). */
interface FileResult {
  customerNumber: string;
  resultCode: number;
  amount: number;
}

/** A file that can be applied, or why not (with the merchant and the sent file when they are known). */
type Checked =
  | { ok: true; sent: ZenginFileTable; merchantId: string; results: FileResult[] }
  | { ok: false; reason: string; merchantId?: string; sent?: ZenginFileTable };

/** Decodes the file and matches it to the request file we sent (docs/operations/zengin.md, "The cycle"). */
async function checkResultFile(db: Tx, bytes: Buffer): Promise<Checked> {
  const kind = bytes.subarray(1, 3).toString("latin1");
  if (kind !== "91" && kind !== "21") return { ok: false, reason: `not a 種別 91 or 21 file (header "${kind}")` };
  const decoded = kind === "91" ? decodeDebitFile(bytes, true) : decodeTransferFile(bytes);
  if (!decoded.ok) return decoded;
  const file = decoded.file;
  const header =
    "consignor" in file
      ? { code: file.consignor.code, date: file.debitDate }
      : { code: file.requester.code, date: file.transferDate };
  const consignor = await findConsignorByCode(db, header.code);
  if (!consignor) return { ok: false, reason: `no merchant has the consignor code ${header.code}` };
  const sent = await findSentFile(db, consignor.merchant_id, kind, header.date);
  if (!sent)
    return {
      ok: false,
      reason: `we sent no 種別 ${kind} file for consignor ${header.code} dated ${header.date}`,
      merchantId: consignor.merchant_id,
    };
  if (sent.state === "answered")
    return {
      ok: false,
      reason: `duplicate: the results of ${sent.name} were already imported`,
      merchantId: sent.merchant_id,
      sent,
    };
  const ours = await sentFileOf(db, sent);
  const mismatch =
    "consignor" in file
      ? resultMismatch(ours as DebitFile, file)
      : transferResultMismatch(ours as TransferFile, file as TransferFile);
  if (mismatch) return { ok: false, reason: mismatch, merchantId: sent.merchant_id, sent };
  return {
    ok: true,
    sent,
    merchantId: sent.merchant_id,
    results: file.records.map((record) => ({
      customerNumber: record.customerNumber,
      resultCode: record.resultCode ?? 0,
      amount: record.amount,
    })),
  };
}

/** Settles every charge or refund of the file; returns the file's totals. */
async function applyResults(ctx: FlowContext, trx: Tx, sent: ZenginFileTable, results: FileResult[], now: Date) {
  const table = kinds[sent.kind];
  const totals = { done_count: 0, done_amount: 0, failed_count: 0, failed_amount: 0 };
  const failures = new Map<number, string[]>();
  for (const { customerNumber, resultCode, amount } of results) {
    if (resultCode === 0) {
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
  if (table === "zengin_debits") await settleDebits(ctx, trx, sent, results, now);
  else {
    const items = new Map((await itemsOfFile(trx, table, sent.id)).map((item) => [item.customer_number, item]));
    for (const { customerNumber, resultCode } of results) {
      const refund = await findRefund(trx, items.get(customerNumber)?.reference ?? "");
      const result = zenginResultOfCode(resultCode);
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
  await answerItems(trx, table, sent.id, failures, now.toISOString());
  return totals;
}

/**
 * The charges of a debit file settled together, as off-session.ts settles one (charge, its
 * async request, its event), in a few statements per thousand charges: a file holds up to
 * hundreds of thousands. Results 3 and 4 also deactivate the contract.
 */
async function settleDebits(
  ctx: FlowContext,
  trx: Tx,
  sent: ZenginFileTable,
  results: FileResult[],
  now: Date,
): Promise<void> {
  const charges = new Map((await chargesOfFile(trx, sent.id)).map((row) => [row.customerNumber, row.charge]));
  const requests = new Map((await asyncRequestsOfFile(trx, sent.id)).map((request) => [request.chargeId, request]));
  const merchantName = (await findMerchant(trx, sent.merchant_id))?.name ?? "";
  const settledCharges: ChargeRecord[] = [];
  const settledRequests: AsyncRequestRecord[] = [];
  const deactivate: string[] = [];
  for (const { customerNumber, resultCode } of results) {
    const charge = charges.get(customerNumber);
    if (charge?.status !== ChargeStatus.PENDING) continue;
    const result = zenginResultOfCode(resultCode);
    const failure = result && { errorType: result.errorType, message: zenginFailureMessage(result) };
    const next = transitionCharge(charge, failure ? ChargeStatus.FAILURE : ChargeStatus.SUCCESS, now, failure);
    settledCharges.push(next);
    const request = requests.get(charge.id);
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
