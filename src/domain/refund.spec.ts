import { describe, expect, it } from "vitest";
import { ApiSource, ChargeStatus, RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import type { ChargeRecord } from "./records.js";
import {
  chargeAfterAcceptance,
  decideRefund,
  failRefund,
  newRefund,
  refundRefusalMessages,
  settleRefund,
} from "./refund.js";
import { bankCalendar } from "./bank-calendar.js";
import { japaneseNationalHolidays } from "../ports/national-holidays.js";
import { defaultBankProfile } from "./bank-profile.js";

const bank = { profile: defaultBankProfile, calendar: bankCalendar(japaneseNationalHolidays) };

const succeededAt = new Date("2026-03-10T05:00:00Z"); // 14:00 JST, a Tuesday

function charge(overrides: Partial<ChargeRecord> = {}): ChargeRecord {
  return {
    id: "trx-1",
    merchantId: "mer-1",
    customerId: "cus-1",
    contractId: null,
    onSessionId: null,
    requestId: null,
    apiSource: ApiSource.OFF_SESSION_ASYNC,
    status: ChargeStatus.SUCCESS,
    amount: 1000,
    description: "",
    metadata: {},
    errorType: 0,
    errorMessage: "",
    refundedAmount: 0,
    pendingRefundAmount: 0,
    succeededAt,
    createdAt: succeededAt,
    updatedAt: succeededAt,
    bankAccountId: null,
    discount: 0,
    ...overrides,
  };
}

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
};

describe("decideRefund", () => {
  it("cancels a full refund before the bank's 15:00 JST cutoff and transfers from it on, settling the next business morning", () => {
    expect(decideRefund(charge(), undefined, new Date("2026-03-10T05:59:59.999Z"), bank)).toEqual({
      kind: "cancellation",
      amount: 1000,
    });
    expect(decideRefund(charge(), 1000, new Date("2026-03-10T05:59:59.999Z"), bank)).toEqual({
      kind: "cancellation",
      amount: 1000,
    });
    const at = new Date("2026-03-10T06:00:00Z");
    expect(decideRefund(charge(), undefined, at, bank)).toEqual({
      kind: "transfer",
      amount: 1000,
      settleAfter: new Date("2026-03-11T00:00:00Z"),
    });
  });

  it("transfers a partial refund even on the same day", () => {
    expect(decideRefund(charge(), 400, succeededAt, bank)).toMatchObject({ kind: "transfer", amount: 400 });
  });

  it("refuses with the contract's messages", () => {
    for (const status of [ChargeStatus.FAILURE, ChargeStatus.PENDING, ChargeStatus.CANCELLED, ChargeStatus.REFUNDED]) {
      expect(refusal(() => decideRefund(charge({ status }), 1, succeededAt, bank))).toBe(
        refundRefusalMessages.notCancellable,
      );
    }
    expect(refusal(() => decideRefund(charge({ pendingRefundAmount: 1000 }), 1, succeededAt, bank))).toBe(
      refundRefusalMessages.notCancellable,
    );
    expect(
      refusal(() => decideRefund(charge({ refundedAmount: 300, pendingRefundAmount: 200 }), 501, succeededAt, bank)),
    ).toBe(refundRefusalMessages.exceedsRefundable);
    expect(refusal(() => decideRefund(charge({ refundedAmount: 300 }), undefined, succeededAt, bank))).toBe(
      refundRefusalMessages.alreadyPartiallyRefunded,
    );
    // The remainder as an amount after a partial refund is a partial refund, settled by transfer.
    expect(decideRefund(charge({ refundedAmount: 300 }), 700, succeededAt, bank)).toMatchObject({
      kind: "transfer",
      amount: 700,
    });
  });
});

describe("settlement arithmetic", () => {
  const now = new Date("2026-03-11T00:00:00Z");

  it("moves the amount from pending to refunded, and REFUNDED once it reaches the amount", () => {
    const decision = decideRefund(charge({ refundedAmount: 600 }), 400, now, bank);
    const accepted = chargeAfterAcceptance(charge({ refundedAmount: 600 }), decision, now);
    expect(accepted).toMatchObject({ pendingRefundAmount: 400, refundedAmount: 600, status: ChargeStatus.SUCCESS });
    const refund = newRefund({ id: "rfd-1", charge: accepted, decision, reason: "", metadata: {}, now });
    expect(refund.status).toBe(RefundStatus.PENDING);
    const settled = settleRefund(accepted, refund, now);
    expect(settled.charge).toMatchObject({
      pendingRefundAmount: 0,
      refundedAmount: 1000,
      status: ChargeStatus.REFUNDED,
    });
    expect(settled.refund.status).toBe(RefundStatus.SUCCEEDED);
  });

  it("releases the pending amount of a failed refund and leaves the status", () => {
    const decision = decideRefund(charge(), 400, now, bank);
    const accepted = chargeAfterAcceptance(charge(), decision, now);
    const refund = newRefund({ id: "rfd-1", charge: accepted, decision, reason: "", metadata: {}, now });
    const failed = failRefund(accepted, refund, "account closed", now);
    expect(failed.charge).toMatchObject({ pendingRefundAmount: 0, refundedAmount: 0, status: ChargeStatus.SUCCESS });
    expect(failed.refund).toMatchObject({ status: RefundStatus.FAILED, errorMessage: "account closed" });
  });

  it("cancels the charge for a same-day full refund, with the whole amount refunded", () => {
    const decision = decideRefund(charge(), undefined, succeededAt, bank);
    expect(chargeAfterAcceptance(charge(), decision, succeededAt)).toMatchObject({
      status: ChargeStatus.CANCELLED,
      refundedAmount: 1000,
      pendingRefundAmount: 0,
    });
  });
});
