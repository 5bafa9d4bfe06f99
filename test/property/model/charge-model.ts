import { AsyncStatus, ChargeStatus, ErrorType } from "../../../gen/payments/v1/enums_pb.js";
import { book, debitVerdict } from "./bank-model.js";
import { accountOfCharge, customerOf, type Model, type ModelCharge } from "./model-state.js";

/** docs/guide/off-session.md: 6 attempts, retried after 2, 4, 8, 16, 32 minutes. */
const bankAttempts = 6;
const minute = 60_000;

/** Why an off-session charge cannot start (FAILED_TO_START), or undefined. */
export function offSessionRefusal(model: Model, customerId: string, forceKyc: boolean): ErrorType | undefined {
  const customer = customerOf(model, customerId);
  if (!customer) return ErrorType.PAYMENT_CUSTOMER_NOT_FOUND;
  if (!customer.active) return ErrorType.PAYMENT_CUSTOMER_INACTIVE;
  if (forceKyc && !customer.kycApproved) return ErrorType.PAYMENT_CHARGE_REJECTED;
  return undefined;
}

export function succeed(model: Model, charge: ModelCharge): void {
  book(accountOfCharge(model, charge), charge.id, -charge.amount);
  charge.status = ChargeStatus.SUCCESS;
  charge.succeededAt = model.now;
  if (charge.requestId) charge.requestStatus = AsyncStatus.SUCCEEDED;
  charge.jobRunAt = undefined;
}

export function fail(charge: ModelCharge, errorType: ErrorType): void {
  charge.status = ChargeStatus.FAILURE;
  charge.errorType = errorType;
  if (charge.requestId) charge.requestStatus = AsyncStatus.FAILED;
  charge.jobRunAt = undefined;
}

/**
 * One engine attempt at a due async charge. `actual` is what the server decided, consulted only
 * where the model cannot know the order of jobs of one drain (a refund credited to the same
 * account in the same drain may or may not have come first).
 */
export function runChargeJob(model: Model, charge: ModelCharge, creditsThisDrain: number, actual: ChargeStatus): void {
  charge.jobAttempts += 1;
  charge.requestStatus = AsyncStatus.RUNNING;
  const account = accountOfCharge(model, charge);
  let verdict = debitVerdict(model, account, charge.amount);
  // Enough with this drain's credits, not enough without them: either order could have happened.
  if (verdict.ok && account.balance - creditsThisDrain < charge.amount && actual === ChargeStatus.FAILURE) {
    verdict = { ok: false, errorType: ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS, retryable: false };
  }
  if (verdict.ok) {
    succeed(model, charge);
    return;
  }
  if (verdict.retryable && charge.jobAttempts < bankAttempts) {
    charge.jobRunAt = model.now + 2 * minute * 2 ** (charge.jobAttempts - 1);
    return;
  }
  fail(charge, verdict.retryable ? ErrorType.PAYMENT_GATEWAY_UNAVAILABLE : verdict.errorType);
}
