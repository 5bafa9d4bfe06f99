import { ChargeStatus, RefundStatus } from "../../../gen/payments/v1/enums_pb.js";
import { runChargeJob } from "./charge-model.js";
import { chargeOf, type Model } from "./model-state.js";
import { runRefundJob } from "./refund-model.js";

/** The charges whose job is due: the drain runs each once. */
export function dueCharges(model: Model) {
  return model.charges.filter(
    (c) => c.status === ChargeStatus.PENDING && c.jobRunAt !== undefined && c.jobRunAt <= model.now,
  );
}

/**
 * What `jobs.drain()` does at model.now: every due refund settlement and async charge runs once
 * (a retry is due later). Refunds go first in the model; `actualStatus` settles the one case where
 * the order mattered (see runChargeJob).
 */
export function drainModel(model: Model, actualStatus: (chargeId: string) => ChargeStatus): void {
  const credits = new Map<string, number>();
  for (const refund of model.refunds.filter(
    (r) => r.status === RefundStatus.PENDING && r.jobRunAt !== undefined && r.jobRunAt <= model.now,
  )) {
    runRefundJob(model, refund);
    if (refund.status === RefundStatus.SUCCEEDED) {
      const customerId = chargeOf(model, refund.chargeId).customerId;
      credits.set(customerId, (credits.get(customerId) ?? 0) + refund.amount);
    }
  }
  for (const charge of dueCharges(model))
    runChargeJob(model, charge, credits.get(charge.customerId) ?? 0, actualStatus(charge.id));
}
