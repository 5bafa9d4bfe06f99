import { describe, expect, it } from "vitest";
import { ApiSource, AsyncStatus, ChargeStatus, ErrorType, EventType } from "../../gen/payments/v1/enums_pb.js";
import { type AsyncRequestRecord, newAsyncRequest, transitionAsyncRequest } from "./async-request.js";
import { transitionCharge } from "./charge.js";
import { type ChargeSettlement, decideSettlement } from "./charge-settlement.js";
import { newOffSessionCharge } from "./off-session-charge.js";
import type { ChargeRecord } from "./records.js";
import { zenginSettlementOf } from "./zengin-settlement.js";

const started = new Date("2026-11-25T01:00:00Z");
const now = new Date("2026-11-26T08:00:00Z");

const pending = (contractId: string | null = "con-1"): ChargeRecord =>
  newOffSessionCharge(
    {
      id: "trx-1",
      merchantId: "mer-1",
      customerId: "cus-1",
      contractId,
      bankAccountId: "acc-1",
      requestId: "pwf-1",
      apiSource: ApiSource.OFF_SESSION_ASYNC,
      amount: 1200,
      description: "November",
      metadata: {},
    },
    started,
  );

const request = newAsyncRequest(
  { id: "pwf-1", merchantId: "mer-1", chargeId: "trx-1", forceKyc: false, refusal: undefined },
  started,
);
const success: ChargeSettlement = { status: ChargeStatus.SUCCESS };
const insufficient: ChargeSettlement = {
  status: ChargeStatus.FAILURE,
  errorType: ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS,
  message: "insufficient funds",
};
const decide = (charge: ChargeRecord, settlement: ChargeSettlement, req: AsyncRequestRecord | undefined = request) =>
  decideSettlement({ charge, request: req, settlement, merchantName: "Shop" }, now);

describe("decideSettlement: a bank answered this charge", () => {
  it("settles a PENDING charge SUCCESS, its request SUCCEEDED through RUNNING, with CHARGE_SUCCESS", () => {
    const decision = decide(pending(), success);
    expect(decision.settled).toBe(true);
    expect(decision.charge).toMatchObject({ status: ChargeStatus.SUCCESS, succeededAt: now, updatedAt: now });
    expect(decision.request).toMatchObject({ id: "pwf-1", status: AsyncStatus.SUCCEEDED });
    expect(decision.event).toMatchObject({ merchantId: "mer-1", type: EventType.CHARGE_SUCCESS, chargeId: "trx-1" });
    expect(decision.event?.content).toMatchObject({ id: "trx-1" });
    expect(decision.deactivateContractId).toBeUndefined();
    expect(decision.reverseBooking).toBe(false);
  });

  it("fails a PENDING charge with the answer's ErrorType and message, its request FAILED, with CHARGE_FAIL", () => {
    const running = transitionAsyncRequest(request, AsyncStatus.RUNNING, started, { attempts: 2 });
    const decision = decide(pending(), insufficient, running);
    expect(decision.charge).toMatchObject({
      status: ChargeStatus.FAILURE,
      errorType: ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS,
      errorMessage: "insufficient funds",
    });
    expect(decision.request).toMatchObject({
      status: AsyncStatus.FAILED,
      attempts: 2,
      errorType: ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS,
    });
    expect(decision.event?.type).toBe(EventType.CHARGE_FAIL);
  });

  it("saves no request for a charge without one, or whose request is already final", () => {
    expect(
      decideSettlement({ charge: pending(), request: undefined, settlement: success, merchantName: "" }, now).request,
    ).toBeUndefined();
    const failed = transitionAsyncRequest(
      transitionAsyncRequest(request, AsyncStatus.RUNNING, now),
      AsyncStatus.FAILED,
      now,
    );
    expect(decide(pending(), success, failed).request).toBeUndefined();
  });

  it("deactivates the contract when the answer ends it (Zengin results 3 and 4), not otherwise", () => {
    expect(decide(pending(), zenginSettlementOf(3)).deactivateContractId).toBe("con-1");
    expect(decide(pending(), zenginSettlementOf(4)).deactivateContractId).toBe("con-1");
    expect(decide(pending(), zenginSettlementOf(1)).deactivateContractId).toBeUndefined();
    expect(decide(pending(null), zenginSettlementOf(3)).deactivateContractId).toBeUndefined();
  });

  it("maps Zengin result codes: 0 succeeds, the others fail with their ErrorType and code in the message", () => {
    expect(zenginSettlementOf(0)).toEqual({ status: ChargeStatus.SUCCESS });
    expect(zenginSettlementOf(2)).toMatchObject({
      status: ChargeStatus.FAILURE,
      errorType: ErrorType.PAYMENT_CUSTOMER_INACTIVE,
      deactivatesContract: false,
    });
    expect(decide(pending(), zenginSettlementOf(1)).charge.errorMessage).toMatch(/Zengin result 1: insufficient funds/);
  });

  it("keeps the outcome of a charge no longer PENDING, reversing only money taken for a charge that failed", () => {
    const failed = transitionCharge(pending(), ChargeStatus.FAILURE, started, {
      errorType: ErrorType.PAYMENT_GATEWAY_UNAVAILABLE,
    });
    const late = decide(failed, success);
    expect(late).toEqual({ charge: failed, settled: false, reverseBooking: true });
    expect(decide(failed, insufficient)).toEqual({ charge: failed, settled: false, reverseBooking: false });
    const succeeded = transitionCharge(pending(), ChargeStatus.SUCCESS, started);
    expect(decide(succeeded, success)).toEqual({ charge: succeeded, settled: false, reverseBooking: false });
    expect(decide(succeeded, zenginSettlementOf(3))).toEqual({
      charge: succeeded,
      settled: false,
      reverseBooking: false,
    });
  });
});
