import { describe, expect, it } from "vitest";
import { ApiSource, AsyncStatus, ChargeStatus, EventType, RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import {
  assertChargeInvariants,
  moneyViolations,
  type ChargeFacts,
  type MoneySnapshot,
  type ZenginFileFacts,
  type ZenginItemFacts,
} from "./invariants.js";

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
      ["trx-1 debit-matches-charge"],
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

  describe("under the Zengin connector: the files are the bank's word, not the simulated ledger", () => {
    const item = (overrides: Partial<ZenginItemFacts>): ZenginItemFacts => ({
      reference: "trx-1",
      state: "answered",
      amount: 1_000,
      resultCode: 0,
      fileId: "zf-91",
      accountKey: "key-1",
      ...overrides,
    });
    const file = (overrides: Partial<ZenginFileFacts>): ZenginFileFacts => ({
      id: "zf-91",
      name: "Z91_1234567890_20261126.txt",
      state: "answered",
      recordCount: 1,
      totalAmount: 1_000,
      doneCount: 1,
      doneAmount: 1_000,
      failedCount: 0,
      failedAmount: 0,
      ...overrides,
    });
    /** A month's charge debited by file and ¥300 paid back by 総合振込; nothing on the simulated ledger. */
    function byFiles(): MoneySnapshot {
      return {
        ...consistent(),
        ledger: [],
        zenginDebits: [item({})],
        zenginTransfers: [item({ reference: "rfd-1", amount: 300, fileId: "zf-21" })],
        zenginFiles: [
          file({}),
          file({ id: "zf-21", name: "Z21_1234567890_20261130.txt", totalAmount: 300, doneAmount: 300 }),
        ],
        accountKeys: [{ id: "bac-1", accountKey: "key-1" }],
      };
    }

    it("a month collected and refunded by files, with no simulated ledger, has no violation", () => {
      expect(rulesOf(byFiles())).toEqual([]);
    });

    it("a debit cancelled before its file: CANCELLED, never succeeded, no charge event", () => {
      const cancelled: MoneySnapshot = {
        ...byFiles(),
        charges: [
          charge({ status: ChargeStatus.CANCELLED, refundedAmount: 1_000, pendingRefundAmount: 0, succeededAt: null }),
        ],
        refunds: [
          { id: "rfd-1", chargeId: "trx-1", amount: 1_000, status: RefundStatus.SUCCEEDED, cancellation: true },
        ],
        events: [{ chargeId: "trx-1", type: EventType.REFUND_SUCCEEDED }],
        zenginDebits: [item({ state: "cancelled", resultCode: null, fileId: null })],
        zenginTransfers: [],
        zenginFiles: [],
        pendingJobs: [],
      };
      expect(rulesOf(cancelled)).toEqual([]);
    });

    it.each<[string, (s: MoneySnapshot) => MoneySnapshot, string[]]>([
      [
        "a charge marked SUCCESS whose debit was answered 1 (資金不足)",
        (s) => ({ ...s, zenginDebits: [item({ resultCode: 1 })] }),
        ["trx-1 debit-matches-charge", "Z91_1234567890_20261126.txt file-matches-items"],
      ],
      [
        "a charge marked SUCCESS whose debit is still in its file",
        (s) => ({ ...s, zenginDebits: [item({ state: "filed", resultCode: null })] }),
        ["trx-1 debit-matches-charge", "Z91_1234567890_20261126.txt file-matches-items"],
      ],
      [
        "a charge still PENDING although its debit was answered",
        (s) => ({
          ...s,
          charges: [charge({ status: ChargeStatus.PENDING, refundedAmount: 0, pendingRefundAmount: 0 })],
          refunds: [],
          asyncRequests: [{ id: "pwf-1", chargeId: "trx-1", status: AsyncStatus.RUNNING }],
          events: [],
          zenginTransfers: [],
          zenginFiles: [file({})],
        }),
        ["trx-1 debit-matches-charge", "trx-1 not-stranded"],
      ],
      [
        "a refund marked FAILED whose transfer was paid (answered 0)",
        (s) => ({
          ...s,
          charges: [charge({ refundedAmount: 0, pendingRefundAmount: 200 })],
          refunds: [
            { id: "rfd-1", chargeId: "trx-1", amount: 300, status: RefundStatus.FAILED, cancellation: false },
            s.refunds[1],
          ],
          events: [
            { chargeId: "trx-1", type: EventType.CHARGE_SUCCESS },
            { chargeId: "trx-1", type: EventType.REFUND_FAILED },
          ],
        }),
        ["rfd-1 credit-matches-refund"],
      ],
      [
        "a refund marked SUCCEEDED whose transfer the bank could not make",
        (s) => ({
          ...s,
          zenginTransfers: [item({ reference: "rfd-1", amount: 300, fileId: "zf-21", resultCode: 2 })],
        }),
        ["rfd-1 credit-matches-refund", "Z21_1234567890_20261130.txt file-matches-items"],
      ],
      [
        "a debit file naming another account than the charge's",
        (s) => ({ ...s, zenginDebits: [item({ accountKey: "key-2" })] }),
        ["trx-1 debit-to-charge-account"],
      ],
      [
        "a transfer file naming another account than the charge was paid from",
        (s) => ({
          ...s,
          zenginTransfers: [item({ reference: "rfd-1", amount: 300, fileId: "zf-21", accountKey: "key-2" })],
        }),
        ["rfd-1 credit-to-charge-account"],
      ],
      [
        "a file whose recorded totals are not its items'",
        (s) => ({ ...s, zenginFiles: [file({ totalAmount: 1_500 }), s.zenginFiles?.[1] ?? file({})] }),
        ["Z91_1234567890_20261126.txt file-matches-items"],
      ],
      [
        "a cancelled debit that still sent a success event",
        (s) => ({
          ...s,
          charges: [
            charge({
              status: ChargeStatus.CANCELLED,
              refundedAmount: 1_000,
              pendingRefundAmount: 0,
              succeededAt: null,
            }),
          ],
          refunds: [
            { id: "rfd-1", chargeId: "trx-1", amount: 1_000, status: RefundStatus.SUCCEEDED, cancellation: true },
          ],
          events: [
            { chargeId: "trx-1", type: EventType.CHARGE_SUCCESS },
            { chargeId: "trx-1", type: EventType.REFUND_SUCCEEDED },
          ],
          pendingJobs: [],
          zenginDebits: [item({ state: "cancelled", resultCode: null, fileId: null })],
          zenginTransfers: [],
          zenginFiles: [],
        }),
        ["trx-1 one-event-per-outcome"],
      ],
    ])("finds %s", (_, breakIt, expected) => {
      expect(rulesOf(breakIt(byFiles()))).toEqual(expected);
    });
  });

  it("the engine refuses a charge write that refunds beyond the amount", () => {
    expect(() => assertChargeInvariants(charge({ refundedAmount: 1_000 }))).toThrow(/refunds-within-amount/);
    expect(() => assertChargeInvariants(charge())).not.toThrow();
  });
});
