import { createHash } from "node:crypto";
import { ChargeStatus, ErrorType, PaymentWorkflow } from "../../gen/payments/v1/enums_pb.js";
import type { Metadata } from "./records.js";
import { limits } from "./limits.js";

/** docs/reference/contract.md#limits: a payment link / on-session payment is valid 90 minutes after creation. */
export const paymentLinkValidityMs = limits.paymentLinkValidityMs;

/**
 * An approval claim older than this is presumed abandoned (the process died between the bank
 * call and the commit) and may be taken over; the bank reference (trx-*) keeps it one debit.
 */
export const approvalClaimLeaseMs = limits.paymentLinkApprovalLeaseMs;

/**
 * Where a payment link stands. `open` → `approving` (claimed by one ApprovePayment) →
 * `completed` | `failed`, or `waiting_kyc` (charge held in WAITING_EKYC until the KYC decision,
 * then `approving` again); `open` → `expired` when it lapses unpaid.
 */
export type LinkState = "open" | "approving" | "waiting_kyc" | "completed" | "failed" | "expired";

/** An on-session payment (chg-*) and its hosted-page session. */
export interface PaymentLinkRecord {
  id: string;
  merchantId: string;
  /** The token the caller presented (only its hash is stored): "" for a link read by its id. */
  token: string;
  workflow: PaymentWorkflow;
  /** Set for every workflow (a one-off payer is kept, though never shown to the merchant). */
  customerId: string;
  contractId: string | null;
  /** trx-* of the charge, for workflows with a price. */
  chargeId: string | null;
  price: number;
  description: string;
  metadata: Metadata;
  email: string;
  forceKyc: boolean;
  successUrl: string;
  failureUrl: string;
  state: LinkState;
  twoFactorVerified: boolean;
  bankLinked: boolean;
  kycSubmitted: boolean;
  expiresAt: Date;
  completedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export function linkExpiresAt(createdAt: Date): Date {
  return new Date(createdAt.getTime() + paymentLinkValidityMs);
}

/** An open link past its expiry: it must be expired before anything else happens to it. */
export function hasLapsed(link: Pick<PaymentLinkRecord, "state" | "expiresAt">, now: Date): boolean {
  return link.state === "open" && now.getTime() >= link.expiresAt.getTime();
}

/** An approval claim whose claimant has not settled it within the lease: it may be taken over. */
export function isApprovalClaimStale(link: Pick<PaymentLinkRecord, "state" | "updatedAt">, now: Date): boolean {
  return link.state === "approving" && now.getTime() - link.updatedAt.getTime() >= approvalClaimLeaseMs;
}

/** The customer has nothing more to do: the outcome is known or being decided. */
export function isLinkSettled(state: LinkState): boolean {
  return state === "completed" || state === "failed" || state === "expired" || state === "waiting_kyc";
}

export function workflowCharges(workflow: PaymentWorkflow): boolean {
  return workflow !== PaymentWorkflow.CONTRACT;
}

/** Workflows that set up a new contract for the customer. */
export function workflowCreatesContract(workflow: PaymentWorkflow): boolean {
  return workflow === PaymentWorkflow.CONTRACT || workflow === PaymentWorkflow.CONTRACT_WITH_CHARGE;
}

/** Every workflow but CHARGE (which debits the account linked with the active contract) links an account. */
export function workflowNeedsBankLink(workflow: PaymentWorkflow): boolean {
  return workflow !== PaymentWorkflow.CHARGE;
}

/** Why ApprovePayment cannot start yet, or undefined when it can. */
export function approvalBlocker(
  link: Pick<PaymentLinkRecord, "twoFactorVerified" | "bankLinked" | "workflow">,
): string | undefined {
  if (!link.twoFactorVerified) return "two-factor verification is required before approving";
  if (workflowNeedsBankLink(link.workflow) && !link.bankLinked) return "link a bank account before approving";
  return undefined;
}

/** The outcome of a settled link, as the page and the redirect show it. */
export interface LinkOutcome {
  chargeStatus: ChargeStatus;
  errorType: ErrorType;
  /** The charge's own error message on failure ("" = the ErrorType's default message). */
  errorMessage: string;
}

/** docs/reference/contract.md#payment-link: a link is settled by approval (SUCCESS/FAILURE), a KYC hold, or expiry. */
export function outcomeOfLink(
  state: LinkState,
  charge: { status: ChargeStatus; errorType: ErrorType; errorMessage: string } | undefined,
): LinkOutcome {
  if (state === "expired")
    return { chargeStatus: ChargeStatus.FAILURE, errorType: ErrorType.PAYMENT_LINK_EXPIRED, errorMessage: "" };
  if (charge?.status === ChargeStatus.FAILURE)
    return { chargeStatus: charge.status, errorType: charge.errorType, errorMessage: charge.errorMessage };
  if (charge) return { chargeStatus: charge.status, errorType: ErrorType.UNSPECIFIED, errorMessage: "" };
  // A contract-only link has no charge: its state says it all.
  if (state === "completed")
    return { chargeStatus: ChargeStatus.SUCCESS, errorType: ErrorType.UNSPECIFIED, errorMessage: "" };
  if (state === "waiting_kyc")
    return { chargeStatus: ChargeStatus.WAITING_EKYC, errorType: ErrorType.UNSPECIFIED, errorMessage: "" };
  if (state === "failed")
    return { chargeStatus: ChargeStatus.FAILURE, errorType: ErrorType.PAYMENT_CHARGE_REJECTED, errorMessage: "" };
  return { chargeStatus: ChargeStatus.PENDING, errorType: ErrorType.UNSPECIFIED, errorMessage: "" };
}

/**
 * Where the customer is sent once the link is settled (docs/guide/hosted-page.md):
 * success_url for SUCCESS and WAITING_EKYC, failure_url otherwise, with
 * charge_id (chg-*), transaction_id (trx-*, absent for contract-only links), contract_id (con-*,
 * when the link sets up a contract), status (CHARGE_STATUS_*) and, on failure, error_code
 * (ERROR_TYPE_*) appended to the merchant's own query string.
 */
export function redirectUrlFor(
  link: Pick<PaymentLinkRecord, "id" | "chargeId" | "contractId" | "workflow" | "successUrl" | "failureUrl">,
  outcome: LinkOutcome,
): string {
  const failed = outcome.chargeStatus === ChargeStatus.FAILURE;
  const url = new URL(failed ? link.failureUrl : link.successUrl);
  url.searchParams.set("charge_id", link.id);
  if (link.chargeId) url.searchParams.set("transaction_id", link.chargeId);
  if (link.contractId && workflowCreatesContract(link.workflow)) url.searchParams.set("contract_id", link.contractId);
  url.searchParams.set("status", `CHARGE_STATUS_${ChargeStatus[outcome.chargeStatus]}`);
  if (failed) url.searchParams.set("error_code", `ERROR_TYPE_${ErrorType[outcome.errorType]}`);
  return url.toString();
}

/** The e-mail as the page may show it: t***@example.jp. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at <= 0) return "***";
  return `${email[0]}***${email.slice(at)}`;
}

/**
 * How long a finished link (approved or failed) still shows what was paid and how it ended: the
 * redirect, a reload or a second tab right after paying. Later the link, found in a browser
 * history or a shared screenshot, says only that the payment is finished (well inside the
 * 90-minute validity, which starts at creation, not at the end).
 */
export const finishedLinkGraceMs = limits.paymentLinkFinishedGraceMs;

/** True once a finished link no longer shows its amount, description and outcome. */
export function detailsWithheld(link: Pick<PaymentLinkRecord, "completedAt">, now: Date): boolean {
  return link.completedAt !== null && now.getTime() - link.completedAt.getTime() > finishedLinkGraceMs;
}

/** What the database keeps of a payment-link token: its SHA-256, hex (a 160-bit random token needs no salt). */
export function hashLinkToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** The token of a payment link URL (…/pay/<token>), or the token itself. */
export function tokenOfPaymentLinkUrl(urlOrToken: string): string {
  const trimmed = urlOrToken.trim();
  if (!/^https?:\/\//i.test(trimmed)) return trimmed;
  const segments = new URL(trimmed).pathname.split("/").filter(Boolean);
  return segments[segments.length - 1] ?? "";
}
