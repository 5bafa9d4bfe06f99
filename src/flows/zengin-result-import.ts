import { createHash } from "node:crypto";
import { type OpenedFile, openDebitBatches } from "../domain/zengin-debit-file.js";
import { itemKindOf, type ZenginFileRecord, type ZenginFileState } from "../domain/zengin-records.js";
import { type AnsweredRecord, type RequestedRecord, ResultCheck } from "../domain/zengin-result-check.js";
import { openTransferBatches } from "../domain/zengin-transfer-file.js";
import { keepLocally } from "../ports/zengin-transport.js";
import type { Tx } from "../storage/transactor.js";
import {
  answerItems,
  debitedItemsPage,
  findContract,
  findContractByTransferCode,
  findIncomingBySha,
  findSentFile,
  insertFile,
  itemAccountKeys,
  itemsByCustomerNumber,
  lockFile,
  saveResultCodes,
  updateFile,
} from "../storage/zengin.js";
import type { FlowContext } from "./flow-context.js";
import type { ZenginExchange } from "./zengin-exchange.js";
import { settleDebits, settleTransfers } from "./zengin-settlement.js";
import { limits } from "../domain/limits.js";

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
  /** It came into incoming/ under a name the exchange does not expect: recorded so, for the dashboard. */
  unexpectedName = false,
): Promise<ImportOutcome> {
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  // The same bytes applied before, or by another import at the same time (two instances, the cycle
  // and an operator): archived, nothing applied again, no quarantine, no alert.
  const archivedBefore = async (db: Tx) => (await findIncomingBySha(db, sha256))?.state === "archived";
  const alreadyApplied = async (): Promise<ImportOutcome> => {
    await keepLocally(exchange.dir, "archive", name, bytes);
    return { ok: true, applied: false };
  };
  if (await archivedBefore(ctx.tx.db)) return alreadyApplied();
  const checked = await checkResultFile(ctx.tx.db, bytes);
  const now = ctx.clock.now();
  const incoming = (state: ZenginFileState, reason: string, sent?: ZenginFileRecord): ZenginFileRecord => ({
    id: `zi-${sha256.slice(0, 32)}`,
    merchantId: sent?.merchantId ?? (checked.ok ? "" : checked.merchantId) ?? "",
    contractCode: sent?.contractCode ?? (checked.ok ? "" : checked.contractCode) ?? "",
    kind: sent?.kind ?? "",
    direction: "in",
    date: sent?.date ?? "",
    name,
    state,
    answers: sent?.id ?? null,
    recordCount: 0,
    totalAmount: 0,
    doneCount: 0,
    doneAmount: 0,
    failedCount: 0,
    failedAmount: 0,
    sha256,
    reason,
    consignor: null,
    dueAt: null,
    unexpectedName,
    createdAt: now,
    updatedAt: now,
  });
  // Every batch of the file (docs/operations/zengin.md#result-files-in-the-wild) applied in one
  // transaction: all of them, or none when one of the files they answer is no longer waiting.
  const latePaid: string[] = [];
  const applied = checked.ok
    ? await ctx.tx.write(async (trx) => {
        const locked = [];
        for (const batch of checked.batches) {
          const sent = await lockFile(ctx.tx, trx, batch.sent.id);
          if (sent?.state !== "sent")
            return (await archivedBefore(trx)) ? null : `the results of ${batch.sent.name} were already imported`;
          locked.push({ ...batch, sent });
        }
        for (const [index, { sent, file, failuresOnly }] of locked.entries()) {
          const { paidAfterFailure, ...totals } = await applyResults(ctx, trx, { sent, file, failuresOnly }, now);
          latePaid.push(...paidAfterFailure);
          await updateFile(trx, sent.id, { state: "answered", updatedAt: now, ...totals });
          const row = incoming("archived", "", sent);
          await insertFile(trx, {
            ...row,
            id: index === 0 ? row.id : `${row.id}-${index + 1}`,
            ...totals,
            recordCount: totals.doneCount + totals.failedCount,
            totalAmount: totals.doneAmount + totals.failedAmount,
          });
        }
        return undefined;
      })
    : checked.reason;
  if (applied === null || (!checked.ok && (await archivedBefore(ctx.tx.db)))) return alreadyApplied();
  if (applied === undefined) {
    ctx.wake("events");
    if (latePaid.length > 0) exchange.onPaidAfterFailure?.({ name, refunds: latePaid });
    await keepLocally(exchange.dir, "archive", name, bytes);
    return { ok: true, applied: true };
  }
  // The merchant (and the file it answers) when known, so the merchant's dashboard shows it too.
  const sentFile = checked.ok ? checked.batches[0].sent : checked.sent;
  await ctx.tx.write((trx) => insertFile(trx, incoming("quarantined", applied, sentFile)));
  await keepLocally(exchange.dir, "quarantine", name, bytes, applied);
  exchange.onQuarantine({ name, reason: applied });
  return { ok: false, reason: applied };
}

/** A result file of either kind, opened: its records are read a batch at a time. */
type ResultFile = OpenedFile<AnsweredRecord>;

/**
 * A batch matched to the request file it answers; `failuresOnly`: its contract's bank lists only
 * the failed debits (docs/guide/direct-debit-files.md#result-styles).
 */
interface CheckedBatch {
  sent: ZenginFileRecord;
  file: ResultFile;
  failuresOnly: boolean;
}

/** A file whose batches can be applied, or why not (with the merchant and the sent file when they are known). */
type Checked =
  | { ok: true; batches: CheckedBatch[] }
  | { ok: false; reason: string; merchantId?: string; contractCode?: string; sent?: ZenginFileRecord };

/** Records of a result file looked up, checked and applied at a time. */
const batchSize = limits.zenginResultBatchRows;

/**
 * Decodes the file and matches each of its batches (header–trailer groups) to the request file
 * we sent (docs/operations/zengin.md#the-cycle); the first batch that cannot be applied refuses it.
 */
async function checkResultFile(db: Tx, bytes: Buffer): Promise<Checked> {
  const kind = bytes.subarray(1, 3).toString("latin1");
  if (kind !== "91" && kind !== "21") return { ok: false, reason: `not a 種別 91 or 21 file (header "${kind}")` };
  const opened = kind === "91" ? openDebitBatches(bytes, true) : openTransferBatches(bytes);
  if (!opened.ok) return opened;
  const batches: CheckedBatch[] = [];
  for (const [index, file] of opened.file.entries()) {
    const checked = await checkBatch(db, kind, file);
    const named = (reason: string) =>
      opened.file.length > 1
        ? `batch ${index + 1} of ${opened.file.length} (consignor ${file.consignor.code}, ${file.date}): ${reason}`
        : reason;
    if (!checked.ok) return { ...checked, reason: named(checked.reason) };
    const { sent } = checked;
    if (batches.some((batch) => batch.sent.id === sent.id))
      return { ok: false, reason: named(`it answers ${sent.name} again`), merchantId: sent.merchantId, sent };
    batches.push(checked);
  }
  return { ok: true, batches };
}

/** One batch matched to the request file we sent, and checked against it record by record. */
async function checkBatch(
  db: Tx,
  kind: "91" | "21",
  file: ResultFile,
): Promise<({ ok: true } & CheckedBatch) | Extract<Checked, { ok: false }>> {
  // Its contract by the code in its header: the 委託者コード of a 種別 91 file, the 振込依頼人コード of a 種別 21 one.
  const code = file.consignor.code;
  const contract = kind === "91" ? await findContract(db, code) : await findContractByTransferCode(db, code);
  if (!contract)
    return {
      ok: false,
      reason:
        kind === "91"
          ? `no merchant has the consignor code ${code}`
          : `no merchant has the transfer requester code ${code}`,
    };
  const sent = await findSentFile(db, contract, kind, file.date);
  if (!sent)
    return {
      ok: false,
      reason: `we sent no 種別 ${kind} file for consignor ${code} dated ${file.date}`,
      merchantId: contract.merchantId,
      contractCode: contract.code,
    };
  if (sent.state === "answered")
    return {
      ok: false,
      reason: `duplicate: the results of ${sent.name} were already imported`,
      merchantId: sent.merchantId,
      sent,
    };
  // The contract's style when its result comes: a 総合振込 answer always lists every transfer.
  const failuresOnly = kind === "91" && contract.resultStyle === "failures_only";
  const mismatch = await mismatchOf(db, sent, file, failuresOnly);
  if (mismatch) return { ok: false, reason: mismatch, merchantId: sent.merchantId, sent };
  return { ok: true, sent, file, failuresOnly };
}

/**
 * Reads the whole file once, a batch at a time: each record decoded, looked up among the items
 * of the file we sent by its customer number (an index), checked, and added to the totals the
 * trailer must equal. Nothing is kept but the totals and which records were answered. In a
 * failures-only result the debits it does not list count as debited in the trailer's totals.
 */
async function mismatchOf(
  db: Tx,
  sent: ZenginFileRecord,
  file: ResultFile,
  failuresOnly: boolean,
): Promise<string | undefined> {
  // Each answer's account compared by its keyed hash: the items' accounts stay sealed.
  const check = new ResultCheck(sent.kind === "91" ? "91" : "21", sent.recordCount, itemAccountKeys, failuresOnly);
  const tally = file.tally();
  for (const batch of batchesOf(file)) {
    if (!batch.ok) return batch.reason;
    const numbers = batch.records.map((record) => record.customerNumber);
    const items = await itemsByCustomerNumber(db, itemKindOf(sent.kind), sent.id, numbers);
    const ours = new Map<string, RequestedRecord>(items.map((item) => [item.customerNumber, item]));
    for (const record of batch.records) {
      const reason = check.record(ours.get(record.customerNumber), record);
      if (reason) return reason;
      tally.add(record);
    }
  }
  return tally.mismatch(failuresOnly ? check.unlisted(sent.totalAmount) : undefined) ?? check.finish();
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

/**
 * Settles every charge or refund of the checked file, a batch at a time; returns the file's totals.
 * A failures-only result settles the debits it lists as failed, then every other debit of the
 * request (result 0, listed or not) as debited on the debit date.
 */
async function applyResults(ctx: FlowContext, trx: Tx, { sent, file, failuresOnly }: CheckedBatch, now: Date) {
  const table = itemKindOf(sent.kind);
  const totals = { doneCount: 0, doneAmount: 0, failedCount: 0, failedAmount: 0, paidAfterFailure: [] as string[] };
  await answerItems(trx, table, sent.id, now.toISOString());
  for (const batch of batchesOf(file)) {
    if (!batch.ok) throw new Error(`${sent.name}: ${batch.reason}, after it was checked`);
    const failures = new Map<number, string[]>();
    for (const { customerNumber, resultCode, amount } of batch.records) {
      if (!resultCode) {
        if (failuresOnly) continue;
        totals.doneCount++;
        totals.doneAmount += amount;
      } else {
        totals.failedCount++;
        totals.failedAmount += amount;
        const numbers = failures.get(resultCode) ?? [];
        numbers.push(customerNumber);
        failures.set(resultCode, numbers);
      }
    }
    await saveResultCodes(trx, table, sent.id, failures);
    const settled = failuresOnly ? batch.records.filter((record) => record.resultCode) : batch.records;
    if (table === "zengin_debits") await settleDebits(ctx, trx, sent.id, settled, now);
    else totals.paidAfterFailure.push(...(await settleTransfers(ctx, trx, sent.id, batch.records, now)));
  }
  if (failuresOnly) {
    const debited = await settleUnlistedDebits(ctx, trx, sent.id, now);
    totals.doneCount = debited.count;
    totals.doneAmount = debited.amount;
  }
  return totals;
}

/** The debits of the file left at result 0 (not listed as failed), settled as debited a page at a time. */
async function settleUnlistedDebits(ctx: FlowContext, trx: Tx, fileId: string, now: Date) {
  const debited = { count: 0, amount: 0 };
  let after = "";
  for (;;) {
    const page = await debitedItemsPage(trx, fileId, after, batchSize);
    if (page.length === 0) return debited;
    await settleDebits(
      ctx,
      trx,
      fileId,
      page.map((item) => ({ ...item, resultCode: 0 })),
      now,
    );
    for (const item of page) debited.amount += item.amount;
    debited.count += page.length;
    after = page[page.length - 1].customerNumber;
  }
}
