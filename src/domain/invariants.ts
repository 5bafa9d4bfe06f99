import { ApiSource, AsyncStatus, ChargeStatus, EventType, RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import { reversalReference } from "./ledger-reference.js";
import type { ChargeRecord } from "./records.js";
import type { ZenginFileTotals } from "./zengin-records.js";

/**
 * The money invariants (docs/reference/invariants.md), checked over a snapshot of the database
 * by `furikomi reconcile`, and per charge by the engine before it writes one. Pure: the rows
 * come in, the violations go out.
 */

/** One broken invariant: which record, which rule, what was found. */
export interface Violation {
  /** trx-*, rfd-*, pwf-* or a ledger reference. */
  readonly subject: string;
  readonly rule: InvariantRule;
  readonly detail: string;
}

export type InvariantRule =
  | "refunds-within-amount"
  | "refund-sums"
  | "terminal-state"
  | "debit-matches-charge"
  | "credit-matches-refund"
  | "async-agrees-with-charge"
  | "one-event-per-outcome"
  | "debit-to-charge-account"
  | "credit-to-charge-account"
  | "not-stranded"
  | "file-matches-items"
  | "one-charge-per-period";

export type ChargeFacts = Pick<
  ChargeRecord,
  | "id"
  | "customerId"
  | "contractId"
  | "bankAccountId"
  | "requestId"
  | "onSessionId"
  | "apiSource"
  | "status"
  | "amount"
  | "refundedAmount"
  | "pendingRefundAmount"
  | "succeededAt"
>;

export interface MoneySnapshot {
  charges: readonly ChargeFacts[];
  refunds: readonly { id: string; chargeId: string; amount: number; status: RefundStatus; cancellation: boolean }[];
  asyncRequests: readonly { id: string; chargeId: string; status: AsyncStatus }[];
  /** Bookings, each on one account (bank_accounts.id). */
  ledger: readonly { reference: string; accountId: string | null; amount: number }[];
  /** The account each contract was approved with (null: not approved yet). */
  contracts: readonly { id: string; bankAccountId: string | null }[];
  /** Outbox rows about charges, by type. */
  events: readonly { chargeId: string; type: EventType }[];
  /** Jobs still to run: kind and reference. */
  pendingJobs: readonly { kind: string; refId: string }[];
  /**
   * Zengin debits (BANK_CONNECTOR=zengin) by charge: scheduled or filed ones wait for the file cycle
   * (not stranded); a cancelled one was left out of its file, so nothing was booked to reverse; an
   * answered one says what the bank did (result 0: debited). Under the Zengin connector these, not
   * the simulated ledger, are the bank's word on a charge.
   */
  zenginDebits?: readonly ZenginItemFacts[];
  /** Zengin transfers (総合振込) by refund: the bank's word on a refund paid back by file. */
  zenginTransfers?: readonly ZenginItemFacts[];
  /** Request files sent (direction out), with their totals as recorded. */
  zenginFiles?: readonly ZenginFileFacts[];
  /** The keyed hash of each bank account's identity (bank, branch, number), by bac-… id. */
  accountKeys?: readonly { id: string; accountKey: string }[];
  /** Payment links by id: where the customer's part stands. */
  links: readonly { id: string; state: string }[];
  /** Recurring billing: each recorded period, each attempt (charge) of a period, each subscription's last period. */
  subscriptionPeriods?: readonly {
    subscriptionId: string;
    period: string;
    finalAmount: number;
    chargeId: string | null;
  }[];
  subscriptionAttempts?: readonly { subscriptionId: string; period: string; attempt: number; chargeId: string }[];
  subscriptionLastPeriods?: readonly { subscriptionId: string; lastPeriod: string | null }[];
  /** Charges whose metadata names a subscription (subscription_id). */
  subscriptionCharges?: readonly { chargeId: string; subscriptionId: string }[];
}

/** A debit (trx-…) or transfer (rfd-…) of the Zengin exchange as the reconcile reads it. */
export interface ZenginItemFacts {
  readonly reference: string;
  readonly state: "scheduled" | "filed" | "answered" | "cancelled";
  readonly amount: number;
  /** The bank's result code once answered (0: done). */
  readonly resultCode: number | null;
  readonly fileId: string | null;
  /** The keyed hash of the account the file names. */
  readonly accountKey: string;
}

/** A request file sent, with its totals as recorded. */
export interface ZenginFileFacts extends ZenginFileTotals {
  readonly id: string;
  readonly name: string;
  readonly state: string;
}

const settledStatuses = new Set([ChargeStatus.SUCCESS, ChargeStatus.CANCELLED, ChargeStatus.REFUNDED]);
const inFlightStatuses = new Set([ChargeStatus.PENDING, ChargeStatus.WAITING_EKYC]);

/**
 * The invariants of one charge on its own, which the engine checks before every write of a
 * charge (storage refuses the write): refunds within the amount, and a terminal state that
 * agrees with its amounts.
 */
export function chargeViolations(charge: ChargeFacts): Violation[] {
  const found: Violation[] = [];
  const add = (rule: InvariantRule, detail: string) => found.push({ subject: charge.id, rule, detail });
  const { amount, refundedAmount: settled, pendingRefundAmount: pending } = charge;
  if (settled < 0 || pending < 0 || settled + pending > amount)
    add("refunds-within-amount", `settled ${settled} + pending ${pending} refunds against an amount of ${amount}`);
  // A Zengin debit cancelled before its file (BANK_CONNECTOR=zengin) ends CANCELLED, wholly refunded, never debited.
  const cancelledBeforeDebit = charge.status === ChargeStatus.CANCELLED && settled === amount && pending === 0;
  if (settledStatuses.has(charge.status) && !charge.succeededAt && !cancelledBeforeDebit)
    add("terminal-state", "settled but never succeeded");
  if (charge.status === ChargeStatus.REFUNDED && settled !== amount)
    add("terminal-state", `REFUNDED with ${settled} of ${amount} refunded`);
  if (!settledStatuses.has(charge.status) && settled + pending > 0)
    add("terminal-state", `refunds of ${settled + pending} on a charge that never succeeded`);
  return found;
}

/** Refuses (throws) a charge write that would break a per-charge invariant. */
export function assertChargeInvariants(charge: ChargeFacts): void {
  const [violation] = chargeViolations(charge);
  if (violation) throw new Error(`refused write of charge ${charge.id}: ${violation.rule}: ${violation.detail}`);
}

/**
 * One charge per subscription per period, none missing (docs/reference/invariants.md): a period
 * that costs something has its charge as attempt 1, one that costs nothing none; every charge of
 * a subscription is an attempt of one of its periods (no period charged twice); a subscription's
 * last period is recorded.
 */
export function subscriptionViolations(snapshot: MoneySnapshot): Violation[] {
  const found: Violation[] = [];
  const add = (subject: string, detail: string) => found.push({ subject, rule: "one-charge-per-period", detail });
  const firstAttempts = new Map(
    (snapshot.subscriptionAttempts ?? [])
      .filter((a) => a.attempt === 1)
      .map((a) => [`${a.subscriptionId}/${a.period}`, a.chargeId]),
  );
  const periods = new Set<string>();
  for (const p of snapshot.subscriptionPeriods ?? []) {
    const key = `${p.subscriptionId}/${p.period}`;
    periods.add(key);
    if (p.finalAmount > 0 && (!p.chargeId || firstAttempts.get(key) !== p.chargeId))
      add(key, `period of ${p.finalAmount} yen without its charge as attempt 1`);
    if (p.finalAmount === 0 && p.chargeId) add(key, "period of 0 yen with a charge");
  }
  const attempted = new Map((snapshot.subscriptionAttempts ?? []).map((a) => [a.chargeId, a]));
  for (const charge of snapshot.subscriptionCharges ?? []) {
    const attempt = attempted.get(charge.chargeId);
    if (!attempt || attempt.subscriptionId !== charge.subscriptionId)
      add(charge.chargeId, `charge of ${charge.subscriptionId} that is no attempt of its periods`);
  }
  for (const s of snapshot.subscriptionLastPeriods ?? [])
    if (s.lastPeriod && !periods.has(`${s.subscriptionId}/${s.lastPeriod}`))
      add(`${s.subscriptionId}/${s.lastPeriod}`, "last period not recorded");
  return found;
}

/** Every invariant over the whole snapshot. */
export function moneyViolations(snapshot: MoneySnapshot): Violation[] {
  const bank = bankWitness(snapshot);
  const refundsOf = groupBy(snapshot.refunds, (r) => r.chargeId);
  const eventsOf = groupBy(snapshot.events, (e) => e.chargeId);
  const chargesById = new Map(snapshot.charges.map((c) => [c.id, c]));
  const jobs = new Set(snapshot.pendingJobs.map((job) => `${job.kind}:${job.refId}`));
  const linkStates = new Map(snapshot.links.map((link) => [link.id, link.state]));
  const found: Violation[] = [];

  for (const charge of snapshot.charges) {
    found.push(...chargeViolations(charge));
    const add = (rule: InvariantRule, detail: string) => found.push({ subject: charge.id, rule, detail });
    const refunds = refundsOf.get(charge.id) ?? [];
    const sum = (status: RefundStatus) =>
      refunds.filter((r) => r.status === status).reduce((total, r) => total + r.amount, 0);
    if (
      sum(RefundStatus.SUCCEEDED) !== charge.refundedAmount ||
      sum(RefundStatus.PENDING) !== charge.pendingRefundAmount
    )
      add(
        "refund-sums",
        `refunds say ${sum(RefundStatus.SUCCEEDED)} settled and ${sum(RefundStatus.PENDING)} pending, the charge ${charge.refundedAmount} and ${charge.pendingRefundAmount}`,
      );
    const cancellations = refunds.filter((r) => r.cancellation && r.status === RefundStatus.SUCCEEDED).length;
    if ((charge.status === ChargeStatus.CANCELLED) !== (cancellations === 1) || cancellations > 1)
      add("terminal-state", `status ${ChargeStatus[charge.status]} with ${cancellations} cancellations`);

    const debitBroken = bank.debitViolation(charge);
    if (debitBroken) add("debit-matches-charge", debitBroken);

    const events = eventsOf.get(charge.id) ?? [];
    const count = (...types: EventType[]) => events.filter((e) => types.includes(e.type)).length;
    const successes = count(EventType.CHARGE_SUCCESS);
    const failures = count(EventType.CHARGE_FAIL, EventType.TEST_CHARGE_FAIL);
    const expected = expectedOutcomeEvents(charge);
    if (successes !== expected[0] || failures !== expected[1])
      add(
        "one-event-per-outcome",
        `${ChargeStatus[charge.status]} with ${successes} success and ${failures} fail events`,
      );
    const settledRefunds = refunds.filter((r) => r.status === RefundStatus.SUCCEEDED).length;
    const failedRefunds = refunds.filter((r) => r.status === RefundStatus.FAILED).length;
    if (count(EventType.REFUND_SUCCEEDED) !== settledRefunds || count(EventType.REFUND_FAILED) !== failedRefunds)
      add(
        "one-event-per-outcome",
        `${settledRefunds} succeeded and ${failedRefunds} failed refunds with ${count(EventType.REFUND_SUCCEEDED)} and ${count(EventType.REFUND_FAILED)} events`,
      );

    if (inFlightStatuses.has(charge.status)) {
      const moved =
        charge.apiSource === ApiSource.ON_SESSION
          ? linkWillMove(linkStates.get(charge.onSessionId ?? ""), charge.onSessionId ?? "", jobs)
          : jobs.has(`async-charge:${charge.id}`);
      if (!moved && !bank.debitAwaitsFile(charge.id))
        add("not-stranded", `${ChargeStatus[charge.status]} with no job or customer step that will move it`);
    }
  }

  for (const refund of snapshot.refunds) {
    if (refund.status === RefundStatus.PENDING) continue;
    const credited = bank.creditOf(refund.id);
    const expected = refund.status === RefundStatus.SUCCEEDED && !refund.cancellation ? refund.amount : 0;
    if (credited !== expected)
      found.push({
        subject: refund.id,
        rule: "credit-matches-refund",
        detail: `${RefundStatus[refund.status]}${refund.cancellation ? " (cancellation)" : ""} of ${refund.amount} but ${bank.describeCredit(refund.id)}`,
      });
  }

  for (const request of snapshot.asyncRequests) {
    const charge = chargesById.get(request.chargeId);
    if (!charge || !asyncAgrees(request.status, charge.status))
      found.push({
        subject: request.id,
        rule: "async-agrees-with-charge",
        detail: `${AsyncStatus[request.status]} while its charge ${request.chargeId} is ${charge ? ChargeStatus[charge.status] : "missing"}`,
      });
  }

  found.push(...accountViolations(snapshot, chargesById));
  found.push(...zenginFileViolations(snapshot));
  return found;
}

/**
 * The events a charge's outcome sends: one CHARGE_SUCCESS once it succeeded, one CHARGE_FAIL once
 * it failed, none in flight — and none for a Zengin debit cancelled before its file, which neither
 * succeeded nor failed (docs/guide/direct-debit-files.md: only the refund's event is sent).
 */
function expectedOutcomeEvents(charge: ChargeFacts): [successes: number, failures: number] {
  if (charge.status === ChargeStatus.CANCELLED && !charge.succeededAt) return [0, 0];
  if (settledStatuses.has(charge.status)) return [1, 0];
  return charge.status === ChargeStatus.FAILURE ? [0, 1] : [0, 0];
}

/**
 * What the bank did with each reference. A charge or refund that went through the Zengin exchange
 * is judged by the files (what was requested, what the result or 総合振込 answer says), which is all
 * a real bank leaves us; every other one by the simulated bank's ledger (bookings and reversals).
 */
function bankWitness(snapshot: MoneySnapshot) {
  const net = new Map<string, number>();
  for (const row of snapshot.ledger) net.set(row.reference, (net.get(row.reference) ?? 0) + row.amount);
  const booked = new Set(snapshot.ledger.map((row) => row.reference));
  const debits = new Map((snapshot.zenginDebits ?? []).map((item) => [item.reference, item]));
  const transfers = new Map((snapshot.zenginTransfers ?? []).map((item) => [item.reference, item]));
  const ledgerNet = (reference: string) => (net.get(reference) ?? 0) + (net.get(reversalReference(reference)) ?? 0);

  return {
    /** Why a charge's debit disagrees with its status (undefined: it agrees). */
    debitViolation(charge: ChargeFacts): string | undefined {
      const status = ChargeStatus[charge.status];
      const debit = debits.get(charge.id);
      if (inFlightStatuses.has(charge.status))
        return debit?.state === "answered"
          ? `${status} although its debit was answered ${debit.resultCode}`
          : undefined;
      const expected =
        charge.status === ChargeStatus.SUCCESS || charge.status === ChargeStatus.REFUNDED ? charge.amount : 0;
      if (debit) {
        if (fileAmount(debit) !== expected) return `${status} but ${describeItem(debit, "debit")}`;
        if (charge.status === ChargeStatus.CANCELLED && debit.state !== "cancelled")
          return `CANCELLED but ${describeItem(debit, "debit")}`;
        return undefined;
      }
      const taken = -ledgerNet(charge.id);
      if (taken !== expected) return `${status} but the bank holds a debit of ${taken}`;
      if (
        charge.status === ChargeStatus.CANCELLED &&
        !(booked.has(charge.id) && booked.has(reversalReference(charge.id)))
      )
        return "CANCELLED without its debit and the debit's reversal";
      return undefined;
    },
    /** A charge whose debit is scheduled or in a file: the file cycle moves it. */
    debitAwaitsFile(chargeId: string): boolean {
      const state = debits.get(chargeId)?.state;
      return state === "scheduled" || state === "filed";
    },
    creditOf(refundId: string): number {
      const transfer = transfers.get(refundId);
      return transfer ? fileAmount(transfer) : ledgerNet(refundId);
    },
    describeCredit(refundId: string): string {
      const transfer = transfers.get(refundId);
      return transfer ? describeItem(transfer, "transfer") : `the bank holds a credit of ${ledgerNet(refundId)}`;
    },
  };
}

/** What an item moved at the bank: its amount once answered 0, nothing otherwise. */
function fileAmount(item: ZenginItemFacts): number {
  return item.state === "answered" && item.resultCode === 0 ? item.amount : 0;
}

function describeItem(item: ZenginItemFacts, kind: "debit" | "transfer"): string {
  switch (item.state) {
    case "answered":
      return item.resultCode === 0
        ? `its ${kind} of ${item.amount} was answered 0 (done)`
        : `its ${kind} of ${item.amount} was answered ${item.resultCode} (not done)`;
    case "cancelled":
      return `its ${kind} was left out of its file (cancelled)`;
    default:
      return `its ${kind} of ${item.amount} is ${item.state}, not answered yet`;
  }
}

/** Rules 8 and 8b: bookings and file records name the account the charge is paid from. */
function accountViolations(snapshot: MoneySnapshot, chargesById: ReadonlyMap<string, ChargeFacts>): Violation[] {
  const found: Violation[] = [];
  const contractAccounts = new Map(snapshot.contracts.map((contract) => [contract.id, contract.bankAccountId]));
  const refundsById = new Map(snapshot.refunds.map((refund) => [refund.id, refund]));
  for (const row of snapshot.ledger) {
    const charge = chargesById.get(row.reference);
    if (charge && row.amount < 0) {
      // The charge's account, and for a charge under a contract the account the contract was approved with.
      const contractAccount = charge.contractId ? contractAccounts.get(charge.contractId) : undefined;
      const expected = [charge.bankAccountId, ...(contractAccount ? [contractAccount] : [])];
      if (expected.some((accountId) => accountId !== row.accountId))
        found.push({
          subject: row.reference,
          rule: "debit-to-charge-account",
          detail: `debited from account ${row.accountId}, the charge's is ${charge.bankAccountId ?? "none"}${contractAccount ? ` and its contract's ${contractAccount}` : ""}`,
        });
    }
    const refund = refundsById.get(row.reference);
    const refunded = refund && chargesById.get(refund.chargeId);
    if (refunded && row.amount > 0 && refunded.bankAccountId !== row.accountId)
      found.push({
        subject: row.reference,
        rule: "credit-to-charge-account",
        detail: `credited to account ${row.accountId}, the charge ${refunded.id} was paid from ${refunded.bankAccountId ?? "none"}`,
      });
  }
  // A file record names an account by its details; compared by the keyed hash of their identity.
  const keys = new Map((snapshot.accountKeys ?? []).map((account) => [account.id, account.accountKey]));
  const keyOf = (accountId: string | null) => (accountId ? keys.get(accountId) : undefined);
  for (const debit of snapshot.zenginDebits ?? []) {
    const charge = chargesById.get(debit.reference);
    const expected = keyOf(charge?.bankAccountId ?? null);
    if (charge && debit.state !== "cancelled" && expected !== undefined && expected !== debit.accountKey)
      found.push({
        subject: debit.reference,
        rule: "debit-to-charge-account",
        detail: `its debit file names another account than the charge's ${charge.bankAccountId}`,
      });
  }
  for (const transfer of snapshot.zenginTransfers ?? []) {
    const charge = chargesById.get(refundsById.get(transfer.reference)?.chargeId ?? "");
    const expected = keyOf(charge?.bankAccountId ?? null);
    if (charge && transfer.state !== "cancelled" && expected !== undefined && expected !== transfer.accountKey)
      found.push({
        subject: transfer.reference,
        rule: "credit-to-charge-account",
        detail: `its transfer file names another account than ${charge.id}'s ${charge.bankAccountId}`,
      });
  }
  return found;
}

/**
 * Rule 10: a request file's recorded totals are its items' (what was sent), and once answered its
 * done and failed totals are what its items were answered (what came back).
 */
function zenginFileViolations(snapshot: MoneySnapshot): Violation[] {
  const found: Violation[] = [];
  const items = groupBy(
    [...(snapshot.zenginDebits ?? []), ...(snapshot.zenginTransfers ?? [])].filter((item) => item.fileId),
    (item) => item.fileId ?? "",
  );
  const total = (list: readonly ZenginItemFacts[]) => list.reduce((sum, item) => sum + item.amount, 0);
  for (const file of snapshot.zenginFiles ?? []) {
    if (file.state === "writing") continue;
    const add = (detail: string) => found.push({ subject: file.name, rule: "file-matches-items", detail });
    const ofFile = items.get(file.id) ?? [];
    if (ofFile.length !== file.recordCount || total(ofFile) !== file.totalAmount)
      add(`${file.recordCount} records of ${file.totalAmount} recorded, ${ofFile.length} items of ${total(ofFile)}`);
    if (file.state !== "answered") continue;
    const done = ofFile.filter((item) => item.state === "answered" && item.resultCode === 0);
    const failed = ofFile.filter((item) => item.state === "answered" && item.resultCode !== 0);
    if (
      done.length !== file.doneCount ||
      total(done) !== file.doneAmount ||
      failed.length !== file.failedCount ||
      total(failed) !== file.failedAmount ||
      done.length + failed.length !== ofFile.length
    )
      add(
        `answered ${file.doneCount} done (${file.doneAmount}) and ${file.failedCount} failed (${file.failedAmount}), its items ${done.length} (${total(done)}) and ${failed.length} (${total(failed)}) of ${ofFile.length}`,
      );
  }
  return found;
}

function asyncAgrees(request: AsyncStatus, charge: ChargeStatus): boolean {
  switch (request) {
    case AsyncStatus.PENDING:
    case AsyncStatus.RUNNING:
      return charge === ChargeStatus.PENDING;
    case AsyncStatus.SUCCEEDED:
      return settledStatuses.has(charge);
    case AsyncStatus.FAILED:
    case AsyncStatus.FAILED_TO_START:
      return charge === ChargeStatus.FAILURE;
    default:
      return false;
  }
}

/**
 * An on-session charge in flight moves on when its customer can still act (an open link), its
 * KYC decision is awaited (waiting_kyc: DecideKyc or the review job moves it), or a job of its
 * link will run (expiry, or the takeover of an approval whose claimant vanished).
 */
function linkWillMove(state: string | undefined, linkId: string, jobs: Set<string>): boolean {
  if (state === "open" || state === "waiting_kyc") return true;
  return jobs.has(`link-expiry:${linkId}`) || jobs.has(`link-approval:${linkId}`);
}

/** Items by key, in linear time: a debit date's file holds 100,000 items under one key. */
function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}
