import { describe, expect, it } from "vitest";
import { ApiSource, AsyncStatus, ChargeStatus, EventType, RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import { assertChargeInvariants, moneyViolations, type ChargeFacts, type MoneySnapshot } from "./invariants.js";

const succeededAt = new Date("2026-03-10T01:00:00Z");

function charge(overrides: Partial<ChargeFacts> = {}): ChargeFacts {
  return {
    id: "trx-1",
    customerId: "cus-1",
    contractId: "con-1",
    bankAccountId: "bac-1",
    requestId: "pwf-1",
    onSessionId: null,
    apiSource: ApiSource.OFF_SESSION_ASYNC,
    status: ChargeStatus.SUCCESS,
    amount: 1_000,
    refundedAmount: 300,
    pendingRefundAmount: 200,
    succeededAt,
    ...overrides,
  };
}

/** A charge of ¥1,000 paid, ¥300 refunded by transfer, ¥200 pending: everything agrees. */
function consistent(): MoneySnapshot {
  return {
    charges: [charge()],
    refunds: [
      { id: "rfd-1", chargeId: "trx-1", amount: 300, status: RefundStatus.SUCCEEDED, cancellation: false },
      { id: "rfd-2", chargeId: "trx-1", amount: 200, status: RefundStatus.PENDING, cancellation: false },
    ],
    asyncRequests: [{ id: "pwf-1", chargeId: "trx-1", status: AsyncStatus.SUCCEEDED }],
    ledger: [
      { reference: "trx-1", accountId: "bac-1", amount: -1_000 },
      { reference: "rfd-1", accountId: "bac-1", amount: 300 },
    ],
    events: [
      { chargeId: "trx-1", type: EventType.CHARGE_SUCCESS },
      { chargeId: "trx-1", type: EventType.REFUND_SUCCEEDED },
    ],
    pendingJobs: [{ kind: "refund-settlement", refId: "rfd-2" }],
    links: [],
    contracts: [{ id: "con-1", bankAccountId: "bac-1" }],
  };
}

const rulesOf = (snapshot: MoneySnapshot) => moneyViolations(snapshot).map((v) => `${v.subject} ${v.rule}`);

describe("money invariants", () => {
  it("a consistent database has no violation", () => {
    expect(rulesOf(consistent())).toEqual([]);
  });

  it.each<[string, (s: MoneySnapshot) => MoneySnapshot, string[]]>([
    [
      "refunds beyond the amount",
      (s) => ({ ...s, charges: [charge({ refundedAmount: 900 })] }),
      ["trx-1 refunds-within-amount", "trx-1 refund-sums"],
    ],
    [
      "a second CHARGE_SUCCESS event",
      (s) => ({ ...s, events: [...s.events, { chargeId: "trx-1", type: EventType.CHARGE_SUCCESS }] }),
      ["trx-1 one-event-per-outcome"],
    ],
    [
      "a failed charge whose debit is on the ledger",
      (s) => ({
        ...s,
        charges: [
          charge({ status: ChargeStatus.FAILURE, refundedAmount: 0, pendingRefundAmount: 0, succeededAt: null }),
        ],
        refunds: [],
        asyncRequests: [{ id: "pwf-1", chargeId: "trx-1", status: AsyncStatus.FAILED }],
        events: [{ chargeId: "trx-1", type: EventType.CHARGE_FAIL }],
        ledger: [{ reference: "trx-1", accountId: "bac-1", amount: -1_000 }],
      }),
      ["trx-1 debit-matches-charge"],
    ],
    [
      "a refund credited twice over (no reversal of a failed one)",
      (s) => ({
        ...s,
        refunds: [{ ...s.refunds[0], status: RefundStatus.FAILED }, s.refunds[1]],
        charges: [charge({ refundedAmount: 0 })],
        events: [
          { chargeId: "trx-1", type: EventType.CHARGE_SUCCESS },
          { chargeId: "trx-1", type: EventType.REFUND_FAILED },
        ],
      }),
      ["rfd-1 credit-matches-refund"],
    ],
    [
      "an async request that disagrees with its charge",
      (s) => ({ ...s, asyncRequests: [{ id: "pwf-1", chargeId: "trx-1", status: AsyncStatus.RUNNING }] }),
      ["pwf-1 async-agrees-with-charge"],
    ],
    [
      "a cancellation that left the debit in place",
      (s) => ({
        ...s,
        charges: [charge({ status: ChargeStatus.CANCELLED, refundedAmount: 1_000, pendingRefundAmount: 0 })],
        refunds: [
          { id: "rfd-1", chargeId: "trx-1", amount: 1_000, status: RefundStatus.SUCCEEDED, cancellation: true },
        ],
        ledger: [{ reference: "trx-1", accountId: "bac-1", amount: -1_000 }],
        events: [
          { chargeId: "trx-1", type: EventType.CHARGE_SUCCESS },
          { chargeId: "trx-1", type: EventType.REFUND_SUCCEEDED },
        ],
      }),
      ["trx-1 debit-matches-charge", "trx-1 debit-matches-charge"],
    ],
    [
      "a debit from another account than the charge's",
      (s) => ({ ...s, ledger: [{ reference: "trx-1", accountId: "bac-2", amount: -1_000 }, s.ledger[1]] }),
      ["trx-1 debit-to-charge-account"],
    ],
    [
      "a charge and its debit on another account than its contract was approved with",
      (s) => ({
        ...s,
        charges: [charge({ bankAccountId: "bac-2" })],
        ledger: [
          { reference: "trx-1", accountId: "bac-2", amount: -1_000 },
          { reference: "rfd-1", accountId: "bac-2", amount: 300 },
        ],
      }),
      ["trx-1 debit-to-charge-account"],
    ],
    [
      "a refund credited to another account than the charge was paid from",
      (s) => ({ ...s, ledger: [s.ledger[0], { reference: "rfd-1", accountId: "bac-2", amount: 300 }] }),
      ["rfd-1 credit-to-charge-account"],
    ],
    [
      "a pending off-session charge with no job",
      (s) => ({
        ...s,
        charges: [
          charge({ status: ChargeStatus.PENDING, refundedAmount: 0, pendingRefundAmount: 0, succeededAt: null }),
        ],
        refunds: [],
        asyncRequests: [{ id: "pwf-1", chargeId: "trx-1", status: AsyncStatus.PENDING }],
        ledger: [],
        events: [],
        pendingJobs: [],
      }),
      ["trx-1 not-stranded"],
    ],
    [
      "an on-session charge waiting for KYC whose link was claimed by a process that died",
      (s) => ({
        ...s,
        charges: [
          charge({
            status: ChargeStatus.WAITING_EKYC,
            apiSource: ApiSource.ON_SESSION,
            onSessionId: "chg-1",
            requestId: null,
            refundedAmount: 0,
            pendingRefundAmount: 0,
            succeededAt: null,
          }),
        ],
        refunds: [],
        asyncRequests: [],
        ledger: [],
        events: [],
        pendingJobs: [],
        links: [{ id: "chg-1", state: "approving" }],
      }),
      ["trx-1 not-stranded"],
    ],
  ])("finds %s", (_, breakIt, expected) => {
    expect(rulesOf(breakIt(consistent()))).toEqual(expected);
  });

  it("the engine refuses a charge write that refunds beyond the amount", () => {
    expect(() => assertChargeInvariants(charge({ refundedAmount: 1_000 }))).toThrow(/refunds-within-amount/);
    expect(() => assertChargeInvariants(charge())).not.toThrow();
  });
});
