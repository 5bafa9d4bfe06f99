import { ApiSource, AsyncStatus, ChargeStatus, EventType, RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import { reversalReference } from "./ledger-reference.js";
import type { ChargeRecord } from "./records.js";

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
  | "not-stranded";

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
   * (not stranded); a cancelled one was left out of its file, so nothing was booked to reverse.
   */
  zenginDebits?: readonly { reference: string; state: string }[];
  /** Payment links by id: where the customer's part stands. */
  links: readonly { id: string; state: string }[];
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

/** Every invariant over the whole snapshot. */
export function moneyViolations(snapshot: MoneySnapshot): Violation[] {
  const net = new Map<string, number>();
  for (const row of snapshot.ledger) net.set(row.reference, (net.get(row.reference) ?? 0) + row.amount);
  const booked = new Set(snapshot.ledger.map((row) => row.reference));
  const refundsOf = groupBy(snapshot.refunds, (r) => r.chargeId);
  const eventsOf = groupBy(snapshot.events, (e) => e.chargeId);
  const chargesById = new Map(snapshot.charges.map((c) => [c.id, c]));
  const jobs = new Set(snapshot.pendingJobs.map((job) => `${job.kind}:${job.refId}`));
  const zenginState = new Map((snapshot.zenginDebits ?? []).map((debit) => [debit.reference, debit.state]));
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

    if (!inFlightStatuses.has(charge.status)) {
      const taken = -(net.get(charge.id) ?? 0) - (net.get(reversalReference(charge.id)) ?? 0);
      const expected =
        charge.status === ChargeStatus.SUCCESS || charge.status === ChargeStatus.REFUNDED ? charge.amount : 0;
      if (taken !== expected)
        add("debit-matches-charge", `${ChargeStatus[charge.status]} but the bank holds a debit of ${taken}`);
      if (
        charge.status === ChargeStatus.CANCELLED &&
        zenginState.get(charge.id) !== "cancelled" &&
        !(booked.has(charge.id) && booked.has(reversalReference(charge.id)))
      )
        add("debit-matches-charge", "CANCELLED without its debit and the debit's reversal");
    }

    const events = eventsOf.get(charge.id) ?? [];
    const count = (...types: EventType[]) => events.filter((e) => types.includes(e.type)).length;
    const successes = count(EventType.CHARGE_SUCCESS);
    const failures = count(EventType.CHARGE_FAIL, EventType.TEST_CHARGE_FAIL);
    const expected = settledStatuses.has(charge.status)
      ? [1, 0]
      : charge.status === ChargeStatus.FAILURE
        ? [0, 1]
        : [0, 0];
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

    if (charge.status === ChargeStatus.PENDING || charge.status === ChargeStatus.WAITING_EKYC) {
      const moved =
        charge.apiSource === ApiSource.ON_SESSION
          ? linkWillMove(linkStates.get(charge.onSessionId ?? ""), charge.onSessionId ?? "", jobs)
          : jobs.has(`async-charge:${charge.id}`);
      const inZenginFiles = ["scheduled", "filed"].includes(zenginState.get(charge.id) ?? "");
      if (!moved && !inZenginFiles)
        add("not-stranded", `${ChargeStatus[charge.status]} with no job or customer step that will move it`);
    }
  }

  for (const refund of snapshot.refunds) {
    if (refund.status === RefundStatus.PENDING) continue;
    const credited = net.get(refund.id) ?? 0;
    const reversed = net.get(reversalReference(refund.id)) ?? 0;
    const expected = refund.status === RefundStatus.SUCCEEDED && !refund.cancellation ? refund.amount : 0;
    if (credited + reversed !== expected)
      found.push({
        subject: refund.id,
        rule: "credit-matches-refund",
        detail: `${RefundStatus[refund.status]}${refund.cancellation ? " (cancellation)" : ""} of ${refund.amount} but the bank holds a credit of ${credited + reversed}`,
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

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}
