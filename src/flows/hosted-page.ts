/**
 * The hosted payment page's flows (docs/guide/hosted-page.md), with the two-factor code in
 * flows/hosted-page-code.ts, the bank search in flows/hosted-page-bank-directory.ts and the
 * approval in flows/hosted-page-approval.ts. One error style per kind of outcome, in all four:
 *
 * - An outcome the contract answers in the response, InitiatePayment's and ApprovePayment's
 *   `result.error` (an unknown or expired link, a triggered error, an approval that cannot run as
 *   asked): returned as `{ error }`, made by `hostedRefusals` below. The page shows it and sends the
 *   customer on; it is no failed call.
 * - A link, bank or field the request names that is not there or not valid (the PaymentErrorCode
 *   table, docs/reference/contract.md#error-mapping): thrown as a PaymentFailure.
 * - A step taken out of order or too often (precondition, rate_limited): thrown as a RequestRefusal.
 */
import {
  effectiveAccountType,
  parseAccount,
  requireDebitableAccountType,
  summariseAccount,
  type BankAccountSummaryView,
} from "../domain/bank-account.js";
import type { MandateTerms } from "../domain/mandate-terms.js";
import {
  BankAccountType,
  ChargeStatus,
  DebitTiming,
  ErrorType,
  KycMethod,
  KycStatus,
  PaymentErrorCode,
  PaymentWorkflow,
} from "../../gen/payments/v1/enums_pb.js";
import type { CustomerProfile } from "../domain/customer.js";
import { kycMethodRefusal, kycReviewDueAt } from "../domain/ekyc.js";
import { requireBankAccountHolder } from "../domain/kana.js";
import { contractFor } from "../domain/contract-scope.js";
import { listContracts } from "../storage/zengin.js";
import { needsKyc, withKycSubmission } from "../domain/kyc.js";
import {
  errorTriggerOf,
  onSessionTriggerSource,
  triggeredErrorMessage,
  type ErrorTrigger,
  type TriggerPoint,
} from "../domain/error-trigger.js";
import { errorTypeMessages, PaymentFailure, validationFailure } from "../domain/payment-failure.js";
import {
  detailsWithheld,
  hasLapsed,
  isLinkSettled,
  maskEmail,
  redirectUrlFor,
  workflowCreatesContract,
  workflowNeedsBankLink,
  type LinkOutcome,
  type PaymentLinkRecord,
} from "../domain/payment-link.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { chargeFailure, paymentErrorCodeOfTriggeredErrorType } from "../errors.js";
import { findVerifiedAccountOfLink } from "../storage/account-verifications.js";
import { unseal } from "../storage/sealed.js";
import { findBankAccountById } from "../storage/bank-accounts.js";
import { findContractById } from "../storage/contracts.js";
import { findCustomerById, lockCustomer, saveCustomer } from "../storage/customers.js";
import { findMerchant } from "../storage/merchants.js";
import { findPaymentLinkById, findPaymentLinkByToken, markPaymentLinkStep } from "../storage/payment-links.js";
import { chooseAccount, directoryNames, type ChosenAccount } from "./account-verification.js";
import { contractMandate } from "./mandates.js";
import { calendarOf } from "./bank-rules.js";
import { currentTermsOf, debitTimingOf, linkDebitDate } from "./debit-timing.js";
import type { FlowContext } from "./flow-context.js";
import { decideAutomatically, scheduleKycReview } from "./kyc-review.js";
import { expirePaymentLink } from "./link-expiry.js";
import { currentOutcome } from "./payment-link-transition.js";

/** The merchant as the page shows it, with the way back. */
export interface HostedMerchantView {
  token: string;
  name: string;
  logoUrl: string;
  successUrl: string;
  failureUrl: string;
  supportEmail: string;
  supportPhone: string;
  supportUrl: string;
}

/** What the page shows and which steps remain (HostedPageService.PaymentSession). */
export interface PaymentSessionView {
  merchant: HostedMerchantView;
  amount: number;
  description: string;
  workflow: PaymentWorkflow;
  expiresAt: Date;
  emailHint: string;
  twoFactorVerified: boolean;
  needsBankLink: boolean;
  bankLinked: boolean;
  needsKyc: boolean;
  kycSubmitted: boolean;
  completed: boolean;
  redirectUrl: string;
  /** PENDING until settled; the charge's status (and error) after. */
  outcome: LinkOutcome;
  /** Finished past the grace period: only `completed` and the merchant's name and logo are shown. */
  detailsWithheld: boolean;
  /** The account the payment debits, masked (none chosen yet: undefined). */
  bankAccount: BankAccountSummaryView | undefined;
  /** Its holder (口座名義) as the bank holds it; "" when none is chosen. */
  accountHolder: string;
  /** The direct-debit terms, for links that set up a contract. */
  terms: MandateTerms | undefined;
  chargeId: string;
  /** con-* of the contract the link set up, once completed ("" before, or when it set up none). */
  contractId: string;
  completedAt: Date | null;
  /** At the approval, or on a debit date (docs/guide/hosted-page.md#when-the-account-is-debited). */
  debitTiming: DebitTiming;
  /** The 振替日 the page states (flows/debit-timing.ts), YYYY-MM-DD JST; undefined when none. */
  debitDate: string | undefined;
}

/** result.error of InitiatePayment and ApprovePayment. */
export interface HostedRefusal {
  paymentErrorCode: PaymentErrorCode;
  message: string;
  merchant?: HostedMerchantView;
  redirectUrl?: string;
}

/** result.success of ApprovePayment: the charge's status and where the customer goes. */
export interface ApprovalOutcome {
  outcome: LinkOutcome;
  redirectUrl: string;
  /** trx-*, empty for a contract-only link. */
  chargeId: string;
  /** con-* of the contract the approval set up ("" when it set up none). */
  contractId: string;
  completedAt: Date | null;
  /** The charge's 振替日 under a bank that debits on a date, once its debit is scheduled. */
  debitDate: string | undefined;
}

export type InitiateAnswer = { session: PaymentSessionView } | { error: HostedRefusal };
export type ApproveAnswer = { success: ApprovalOutcome } | { error: HostedRefusal };

const linkNotFoundMessage = "payment link not found";
/** Thrown: a step (or a directory search) with a token no link has. */
export const linkNotFound = () => new PaymentFailure(PaymentErrorCode.NOT_FOUND, linkNotFoundMessage);

/** The result.error answers of InitiatePayment and ApprovePayment, all made here. */
export const hostedRefusals = Object.freeze({
  unknownLink: (): HostedRefusal => ({ paymentErrorCode: PaymentErrorCode.NOT_FOUND, message: linkNotFoundMessage }),
  expired: (merchant: HostedMerchantView, redirectUrl: string): HostedRefusal => ({
    paymentErrorCode: PaymentErrorCode.EXPIRED,
    message: errorTypeMessages[ErrorType.PAYMENT_LINK_EXPIRED],
    merchant,
    redirectUrl,
  }),
  /** docs/reference/contract.md#error-triggers: the ErrorType the link's metadata asked for. */
  triggered: (errorType: ErrorType, extra: Pick<HostedRefusal, "merchant" | "redirectUrl">): HostedRefusal => ({
    paymentErrorCode: paymentErrorCodeOfTriggeredErrorType[errorType],
    message: triggeredErrorMessage(errorType),
    ...extra,
  }),
  /** The approval cannot run as asked (a step missing, changed terms, an invalid trigger). */
  badRequest: (message: string): HostedRefusal => ({ paymentErrorCode: PaymentErrorCode.BAD_REQUEST, message }),
  stillProcessing: (): HostedRefusal => ({
    paymentErrorCode: PaymentErrorCode.INTERNAL,
    message: "the payment is still being processed; reload the page to see its outcome",
  }),
});

/** The link of a token; a lapsed link is expired first (before its job runs), so it never pays late. */
export async function findPaymentLink(ctx: FlowContext, token: string): Promise<PaymentLinkRecord | undefined> {
  const link = await findPaymentLinkByToken(ctx.tx.db, token);
  if (!link || !hasLapsed(link, ctx.clock.now())) return link;
  await expirePaymentLink(ctx, link.id);
  const expired = await findPaymentLinkById(ctx.tx.db, link.id);
  return expired ? { ...expired, token } : link;
}

/** A page step (code, bank, KYC) needs an open link, and all but sending the code a verified customer. */
export async function openStep(
  ctx: FlowContext,
  token: string,
  needs: { verified: boolean },
): Promise<PaymentLinkRecord> {
  const link = await findPaymentLink(ctx, token);
  if (!link) throw linkNotFound();
  if (link.state === "expired") throw chargeFailure(ErrorType.PAYMENT_LINK_EXPIRED);
  if (link.state !== "open") throw new RequestRefusal("precondition", "this payment has already been approved");
  if (needs.verified && !link.twoFactorVerified)
    throw new RequestRefusal("precondition", "verify the two-factor code first");
  return link;
}

export async function merchantView(ctx: FlowContext, link: PaymentLinkRecord): Promise<HostedMerchantView> {
  const merchant = await findMerchant(ctx.tx.db, link.merchantId);
  return {
    token: link.token,
    name: merchant?.name ?? "",
    logoUrl: merchant?.logoUrl ?? "",
    successUrl: link.successUrl,
    failureUrl: link.failureUrl,
    supportEmail: merchant?.supportEmail ?? "",
    supportPhone: merchant?.supportPhone ?? "",
    supportUrl: merchant?.supportUrl ?? "",
  };
}

/** The account a link debits and its holder (口座名義, as the bank holds it). */
interface LinkAccount {
  summary: BankAccountSummaryView;
  holder: string;
}

/** The account a link debits, masked: the one it verified (new contracts), else the contract's. */
async function accountOfLink(ctx: FlowContext, link: PaymentLinkRecord): Promise<LinkAccount | undefined> {
  if (workflowNeedsBankLink(link.workflow)) {
    const verified = await findVerifiedAccountOfLink(ctx.tx.db, link.id);
    if (!verified) return undefined;
    return { summary: verified.summary, holder: parseAccount(unseal(verified.accountSealed)).accountHolder };
  }
  const contract = link.contractId ? await findContractById(ctx.tx.db, link.contractId) : undefined;
  const account = contract?.bankAccountId ? await findBankAccountById(ctx.tx.db, contract.bankAccountId) : undefined;
  const mandate = link.contractId ? await contractMandate(ctx, link.merchantId, link.contractId) : undefined;
  if (mandate) return { summary: mandate.summary, holder: account?.details.accountHolder ?? "" };
  // A contract set up before mandates were recorded: the account it was approved with.
  if (!account) return undefined;
  const { details } = account;
  return {
    summary: summariseAccount(details, directoryNames(ctx, details.bankCode, details.branchCode)),
    holder: details.accountHolder,
  };
}

/**
 * docs/reference/contract.md#error-triggers — what the link's metadata asks for at this point: the customer's metadata
 * for a contract-only link, the charge metadata otherwise.
 */
export async function linkTrigger(
  ctx: FlowContext,
  link: PaymentLinkRecord,
  point: TriggerPoint,
): Promise<ErrorTrigger> {
  const sandbox = ctx.mode.sandboxTools;
  const fromCustomer = sandbox && onSessionTriggerSource(link.workflow) === "customer";
  const metadata = fromCustomer
    ? ((await findCustomerById(ctx.tx.db, link.customerId))?.metadata ?? {})
    : link.metadata;
  return errorTriggerOf(metadata, point, sandbox);
}

/**
 * The outcome of a settled link. A contract-only link has no charge to hold its error, so one
 * failed by a triggerError (the customer's metadata) shows that ErrorType rather than the default.
 */
export async function settledOutcome(
  ctx: FlowContext,
  linkId: string,
): Promise<{ link: PaymentLinkRecord; outcome: LinkOutcome; redirectUrl: string }> {
  const current = await currentOutcome(ctx, linkId);
  const { link } = current;
  if (link.state !== "failed" || link.chargeId) return current;
  const trigger = await linkTrigger(ctx, link, "approve_payment");
  if (trigger.kind !== "error") return current;
  const outcome = { ...current.outcome, errorType: trigger.errorType, errorMessage: "" };
  return { link, outcome, redirectUrl: redirectUrlFor(link, outcome) };
}

/** InitiatePayment: what is paid, to whom, and which steps remain; an unknown or expired link is result.error. */
export async function initiatePayment(ctx: FlowContext, token: string): Promise<InitiateAnswer> {
  const link = await findPaymentLink(ctx, token);
  if (!link) return { error: hostedRefusals.unknownLink() };
  const [merchant, { outcome, redirectUrl }, customer, linkAccount] = await Promise.all([
    merchantView(ctx, link),
    settledOutcome(ctx, link.id),
    findCustomerById(ctx.tx.db, link.customerId),
    accountOfLink(ctx, link),
  ]);
  if (link.state === "expired") return { error: hostedRefusals.expired(merchant, redirectUrl) };
  if (link.state === "open") {
    // docs/reference/contract.md#error-triggers: only VALIDATION_FAILED and LINK_EXPIRED trigger here; nothing is changed.
    const trigger = await linkTrigger(ctx, link, "initiate_payment");
    if (trigger.kind === "error") return { error: hostedRefusals.triggered(trigger.errorType, { merchant }) };
  }
  const completed = isLinkSettled(link.state);
  const bankAccount = linkAccount?.summary;
  if (detailsWithheld(link, ctx.clock.now())) return { session: withheldSession(link, merchant) };
  return {
    session: {
      merchant,
      amount: link.price,
      description: link.description,
      workflow: link.workflow,
      expiresAt: link.expiresAt,
      emailHint: maskEmail(link.email),
      twoFactorVerified: link.twoFactorVerified,
      needsBankLink: workflowNeedsBankLink(link.workflow),
      bankLinked: link.bankLinked,
      needsKyc: needsKyc(link.forceKyc, customer?.kycStatus ?? KycStatus.NOT_SUBMITTED),
      kycSubmitted: link.kycSubmitted,
      completed,
      redirectUrl: completed ? redirectUrl : "",
      outcome,
      detailsWithheld: false,
      bankAccount,
      accountHolder: linkAccount?.holder ?? "",
      terms: workflowCreatesContract(link.workflow) ? currentTermsOf(ctx) : undefined,
      chargeId: link.chargeId ?? "",
      contractId: completed && workflowCreatesContract(link.workflow) ? (link.contractId ?? "") : "",
      completedAt: link.completedAt,
      debitTiming: debitTimingOf(ctx),
      debitDate: await linkDebitDate(ctx, link, bankAccount?.bankCode),
    },
  };
}

/** A link finished past the grace period: that it is finished, and whose it is; nothing of what or how. */
function withheldSession(link: PaymentLinkRecord, merchant: HostedMerchantView): PaymentSessionView {
  return {
    merchant: { ...merchant, successUrl: "", failureUrl: "" },
    amount: 0,
    description: "",
    workflow: link.workflow,
    expiresAt: link.expiresAt,
    emailHint: "",
    twoFactorVerified: link.twoFactorVerified,
    needsBankLink: false,
    bankLinked: link.bankLinked,
    needsKyc: false,
    kycSubmitted: link.kycSubmitted,
    completed: true,
    redirectUrl: "",
    outcome: { chargeStatus: ChargeStatus.UNSPECIFIED, errorType: ErrorType.UNSPECIFIED, errorMessage: "" },
    detailsWithheld: true,
    bankAccount: undefined,
    accountHolder: "",
    terms: undefined,
    chargeId: "",
    contractId: "",
    completedAt: null,
    debitTiming: DebitTiming.UNSPECIFIED,
    debitDate: undefined,
  };
}

export interface LinkBankAccountInput {
  bankCode: string;
  branchCode: string;
  accountType: BankAccountType;
  accountNumber: string;
  accountHolder: string;
  /** The page's origin (the request's Origin header): where the bank sends the customer back. */
  pageOrigin?: string;
}

/**
 * Chooses the customer's account for a new contract. The holder is kept in the bank's kana form
 * (domain/kana.ts) and the details sealed. Where the bank verifies mandates online, the answer
 * carries the bank's page to send the customer to, and the account is linked when they come back
 * (flows/account-verification.ts); elsewhere it is linked now (in sandbox: a simulated account with
 * ¥1,000,000, or an existing one's balance kept), to be registered with the first debit.
 */
export async function linkBankAccount(
  ctx: FlowContext,
  token: string,
  input: LinkBankAccountInput,
): Promise<ChosenAccount> {
  const link = await openStep(ctx, token, { verified: true });
  // Written to the 全銀協 rules, widened where the contract covering the bank accepts more
  // (docs/guide/direct-debit-files.md#characters-in-names).
  const contract = contractFor(await listContracts(ctx.tx.db, link.merchantId), input.bankCode);
  const widened = contract?.nameCharacters ?? "";
  const accountHolder = requireBankAccountHolder(input.accountHolder, "account_holder", widened);
  requireDebitableAccountType(input.accountType);
  if (!workflowNeedsBankLink(link.workflow))
    throw new RequestRefusal("precondition", "this payment uses the account already linked to the customer's contract");
  const account = {
    bankCode: input.bankCode,
    branchCode: input.branchCode,
    accountType: effectiveAccountType(input.accountType),
    accountNumber: input.accountNumber,
    accountHolder,
  };
  return chooseAccount(ctx, link, account, input.pageOrigin);
}

/**
 * The KYC form (asked for when the merchant set force_kyc): the customer's KYC goes IN_REVIEW.
 * In sandbox mode, with `decide`, the merchant's review mode then decides it (by default:
 * approved at once; with a declared `method`, when that method's review would finish, see
 * domain/ekyc.ts); SandboxService.CompletePayment decides it itself. Photo-based methods are
 * refused from 2027-04-01.
 */
export async function submitKyc(
  ctx: FlowContext,
  token: string,
  form: CustomerProfile,
  options: { decide: boolean; method?: KycMethod },
): Promise<KycStatus> {
  const method = options.method ?? KycMethod.UNSPECIFIED;
  const methodRefusal = kycMethodRefusal(method, ctx.clock.now());
  if (methodRefusal) throw validationFailure("method", methodRefusal);
  const link = await openStep(ctx, token, { verified: true });
  if (!link.forceKyc) throw new RequestRefusal("precondition", "KYC is not requested for this payment");
  const review = await ctx.tx.write(async (trx) => {
    const now = ctx.clock.now();
    const customer = await lockCustomer(ctx.tx, trx, link.merchantId, link.customerId);
    if (!customer) throw linkNotFound();
    const submitted = withKycSubmission(customer, form, now);
    await saveCustomer(trx, submitted);
    await markPaymentLinkStep(trx, link.id, "kyc_submitted", now);
    const automatic = options.decide && ctx.mode.sandboxTools && submitted.kycStatus === KycStatus.IN_REVIEW;
    const reviewedAt =
      method === KycMethod.UNSPECIFIED ? undefined : kycReviewDueAt(method, calendarOf(ctx.config), now);
    return automatic ? scheduleKycReview(ctx, trx, link.merchantId, link.customerId, now, reviewedAt) : "manual";
  });
  if (review === "now") await decideAutomatically(ctx, link.merchantId, link.customerId);
  const customer = await findCustomerById(ctx.tx.db, link.customerId);
  return customer?.kycStatus ?? KycStatus.IN_REVIEW;
}
