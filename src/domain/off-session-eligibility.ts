import { ErrorType, PaymentAuthorizationStatus } from "../../gen/payments/v1/enums_pb.js";
import { needsKyc } from "./kyc.js";
import type { ContractRecord, CustomerRecord } from "./records.js";

/** What an off-session request knows once it has looked the customer up. */
export interface OffSessionFacts {
  /** The customer named by customer_id among this merchant's live customers, if any. */
  customer: CustomerRecord | undefined;
  /** That customer's ACTIVATED contract, if any. */
  activatedContract: ContractRecord | undefined;
  forceKyc: boolean;
}

/**
 * Why an off-session charge cannot start, or undefined when it can (docs/reference/contract.md#charge-processing-errors:
 * such a request answers ASYNC_STATUS_FAILED_TO_START):
 *
 * | fact                                                      | ErrorType                 |
 * |-----------------------------------------------------------|---------------------------|
 * | no such customer under this merchant                      | PAYMENT_CUSTOMER_NOT_FOUND |
 * | no ACTIVATED contract                                     | PAYMENT_CUSTOMER_INACTIVE |
 * | status.payment NOT_AUTHORIZED (even with KYC approved)    | PAYMENT_CUSTOMER_INACTIVE |
 * | force_kyc and KYC not APPROVED                            | PAYMENT_CHARGE_REJECTED   |
 */
export function offSessionRefusal(facts: OffSessionFacts): ErrorType | undefined {
  const { customer } = facts;
  if (!customer) return ErrorType.PAYMENT_CUSTOMER_NOT_FOUND;
  if (!facts.activatedContract) return ErrorType.PAYMENT_CUSTOMER_INACTIVE;
  // docs/reference/contract.md#off-session: "a customer whose payment status is NOT_AUTHORIZED cannot be charged off-session, even when KYC is approved".
  if (customer.paymentStatus !== PaymentAuthorizationStatus.AUTHORIZED) return ErrorType.PAYMENT_CUSTOMER_INACTIVE;
  if (needsKyc(facts.forceKyc, customer.kycStatus)) return ErrorType.PAYMENT_CHARGE_REJECTED;
  return undefined;
}
