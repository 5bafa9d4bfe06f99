import { KycStatus } from "../../gen/payments/v1/enums_pb.js";
import { KycReviewMode } from "../../gen/payments/v1/sandbox_service_pb.js";
import type { CustomerProfile } from "./customer.js";

/** force_kyc asks for KYC unless the customer's KYC is already approved. */
export function needsKyc(forceKyc: boolean, kycStatus: KycStatus): boolean {
  return forceKyc && kycStatus !== KycStatus.APPROVED;
}

/** What KYC means for the charge at approval time (docs/reference/contract.md#kyc: ERROR_TYPE_PAYMENT_CHARGE_REJECTED). */
export type KycGate = "clear" | "in_review" | "rejected";

export function kycGate(forceKyc: boolean, kycStatus: KycStatus): KycGate {
  if (!needsKyc(forceKyc, kycStatus)) return "clear";
  // Submitted and not yet decided: the charge waits in WAITING_EKYC.
  if (kycStatus === KycStatus.IN_REVIEW) return "in_review";
  // Denied, or never submitted during the redirect.
  return "rejected";
}

/** How the sandbox decides submitted KYC; a merchant that set nothing gets automatic approval at once. */
export interface KycReviewSettings {
  mode: KycReviewMode;
  delaySeconds: number;
}

export const defaultKycReview: KycReviewSettings = Object.freeze({ mode: KycReviewMode.AUTO_APPROVE, delaySeconds: 0 });

/** The decision an automatic mode makes, or undefined when a person (DecideKyc) decides. */
export function automaticKycDecision(mode: KycReviewMode): KycStatus.APPROVED | KycStatus.DENIED | undefined {
  if (mode === KycReviewMode.AUTO_APPROVE) return KycStatus.APPROVED;
  if (mode === KycReviewMode.AUTO_DENY) return KycStatus.DENIED;
  return undefined;
}

/** The customer after submitting the KYC form: IN_REVIEW (an approved KYC stays approved). */
export function withKycSubmission<
  T extends CustomerProfile & { kycStatus: KycStatus; kycRejectionReason: string; updatedAt: Date },
>(customer: T, form: CustomerProfile, now: Date): T {
  if (customer.kycStatus === KycStatus.APPROVED) return customer;
  return { ...customer, ...form, kycStatus: KycStatus.IN_REVIEW, kycRejectionReason: "", updatedAt: now };
}

/** The customer after a KYC decision. */
export function withKycDecision<T extends { kycStatus: KycStatus; kycRejectionReason: string; updatedAt: Date }>(
  customer: T,
  decision: KycStatus.APPROVED | KycStatus.DENIED,
  reason: string,
  now: Date,
): T {
  return {
    ...customer,
    kycStatus: decision,
    kycRejectionReason: decision === KycStatus.DENIED ? reason : "",
    updatedAt: now,
  };
}
