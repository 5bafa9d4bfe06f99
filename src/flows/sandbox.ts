import {
  BankAccountType,
  BankVerificationFailure,
  ChargeStatus,
  ContractStatus,
  KycStatus,
  PaymentErrorCode,
  PaymentWorkflow,
} from "../../gen/payments/v1/enums_pb.js";
import { KycOutcome } from "../../gen/payments/v1/sandbox_service_pb.js";
import { randomInt } from "node:crypto";
import { bankAuthenticationRules } from "../domain/bank-authentication.js";
import { PaymentFailure } from "../domain/payment-failure.js";
import {
  outcomeOfLink,
  tokenOfPaymentLinkUrl,
  type LinkOutcome,
  type PaymentLinkRecord,
} from "../domain/payment-link.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import {
  findBankAccountsOfCustomer,
  findCurrentBankAccount,
  findPendingBankAccount,
  ledgerOfAccount,
  openBankAccount,
  setBankAccountBalance,
  updateBankAccountSettings,
  type BankAccountRecord,
} from "../storage/bank-accounts.js";
import {
  effectiveAccountType,
  summariseAccount,
  type BankAccountDetails,
  type BankAccountSummaryView,
} from "../domain/bank-account.js";
import { findContractById } from "../storage/contracts.js";
import { findCustomerById } from "../storage/customers.js";
import { listMailbox } from "../storage/mailbox.js";
import { operatorMailbox, type MailboxMessageRecord } from "../domain/mailbox-message.js";
import { findPaymentLinkByToken } from "../storage/payment-links.js";
import { findBankSettings, saveBankSettings } from "../storage/sandbox-settings.js";
import { underMaintenanceAt } from "../domain/simulated-bank-maintenance.js";
import { findCharge, findCustomer } from "../storage/status-queries.js";
import type { FlowContext } from "./flow-context.js";
import { initiatePayment, linkBankAccount, settledOutcome, submitKyc, type HostedRefusal } from "./hosted-page.js";
import { approvePayment } from "./hosted-page-approval.js";
import { sendTwoFactorCode, verifyTwoFactorCode } from "./hosted-page-code.js";
import { completeBankReturn, directoryNames } from "./account-verification.js";
import { decideKyc } from "./kyc-review.js";
import { expirePaymentLink } from "./link-expiry.js";
import type { LedgerEntry } from "../domain/simulated-bank-account.js";

const notFound = (what: string) => new PaymentFailure(PaymentErrorCode.NOT_FOUND, `${what} not found`);

/** The calling merchant's payment link, by its URL (or token); another merchant's reads as missing. */
async function merchantLink(ctx: FlowContext, merchantId: string, paymentLinkUrl: string): Promise<PaymentLinkRecord> {
  let token: string;
  try {
    token = tokenOfPaymentLinkUrl(paymentLinkUrl);
  } catch {
    throw new PaymentFailure(PaymentErrorCode.BAD_REQUEST, "payment_link_url: not a URL", {
      field: "payment_link_url",
    });
  }
  const link = await findPaymentLinkByToken(ctx.tx.db, token);
  if (!link || link.merchantId !== merchantId) throw notFound("payment link");
  return link;
}

export interface SimulatedAccount {
  account: BankAccountRecord;
  /** The account masked (みずほ銀行 渋谷支店 普通 ****567): the only form that leaves the service. */
  summary: BankAccountSummaryView;
  underMaintenance: boolean;
  ledger: LedgerEntry[];
}

/** The customer's accounts at the simulated bank: the current one (its active contract's, else the last approved) and all. */
export async function getBankAccount(
  ctx: FlowContext,
  merchantId: string,
  customerId: string,
): Promise<{ current: SimulatedAccount; accounts: SimulatedAccount[] }> {
  const current = await findCurrentBankAccount(ctx.tx.db, merchantId, customerId);
  if (!current) throw notFound(`bank account of ${customerId}`);
  const accounts = await findBankAccountsOfCustomer(ctx.tx.db, merchantId, customerId);
  return {
    current: await simulatedAccount(ctx, current),
    accounts: await Promise.all(accounts.map((account) => simulatedAccount(ctx, account))),
  };
}

async function simulatedAccount(ctx: FlowContext, account: BankAccountRecord): Promise<SimulatedAccount> {
  const { details } = account;
  return {
    account,
    summary: summariseAccount(details, directoryNames(ctx, details.bankCode, details.branchCode)),
    underMaintenance: underMaintenanceAt(account.underMaintenance, account.maintenanceUntil, ctx.clock.now()),
    ledger: await ledgerOfAccount(ctx.tx.db, account.id),
  };
}

export interface BankAccountSettings {
  balance?: number;
  quota?: number;
  underMaintenance?: boolean;
  reject?: boolean;
  latencyMs?: number;
  maintenanceUntil?: Date;
}

/** Sets every simulated account of a customer; opens one (¥1,000,000) when the customer has none yet. */
export async function configureBankAccount(
  ctx: FlowContext,
  merchantId: string,
  customerId: string,
  settings: BankAccountSettings,
): Promise<SimulatedAccount> {
  const customer = await findCustomer(ctx.tx.db, merchantId, customerId);
  if (!customer) throw notFound(`customer ${customerId}`);
  await ctx.tx.write(async (trx) => {
    if ((await findBankAccountsOfCustomer(trx, merchantId, customerId)).length === 0)
      await openBankAccount(trx, {
        merchantId,
        customerId,
        details: simulatedAccountDetails(customer.katakanaLastName),
        balance: 1_000_000,
        now: ctx.clock.now(),
      });
    const maintenance =
      settings.maintenanceUntil !== undefined
        ? { under_maintenance: 1, maintenance_until: settings.maintenanceUntil.toISOString() }
        : settings.underMaintenance !== undefined
          ? { under_maintenance: settings.underMaintenance ? 1 : 0, maintenance_until: null }
          : {};
    await updateBankAccountSettings(trx, customerId, {
      ...(settings.balance !== undefined ? { balance: settings.balance } : {}),
      ...(settings.quota !== undefined ? { quota: settings.quota } : {}),
      ...(settings.reject !== undefined ? { reject: settings.reject ? 1 : 0 } : {}),
      ...(settings.latencyMs !== undefined ? { latency_ms: settings.latencyMs } : {}),
      ...maintenance,
    });
    await ctx.audit?.(trx, { action: "sandbox.bank_account", target: customerId, details: { ...settings } });
  });
  return (await getBankAccount(ctx, merchantId, customerId)).current;
}

/** Details of an account opened by the sandbox itself (not through the page). */
function simulatedAccountDetails(holder: string, bankCode = "0001"): BankAccountDetails {
  return {
    bankCode,
    branchCode: "001",
    accountType: BankAccountType.ORDINARY,
    accountNumber: randomInt(0, 10_000_000).toString().padStart(7, "0"),
    accountHolder: holder || "テスト",
  };
}

/**
 * CompletePayment's account: the one asked for, else the customer's current account at that bank
 * (so a payment by a known customer debits the account it already has), else a fresh one.
 */
async function accountToLink(
  ctx: FlowContext,
  link: PaymentLinkRecord,
  options: CompletePaymentOptions,
): Promise<BankAccountDetails> {
  const current = (await findCurrentBankAccount(ctx.tx.db, link.merchantId, link.customerId))?.details;
  const bankCode = options.bankCode || current?.bankCode || "0001";
  const base =
    !options.accountNumber && current?.bankCode === bankCode
      ? current
      : {
          ...simulatedAccountDetails("テスト タロウ", bankCode),
          ...(options.accountNumber && { accountNumber: options.accountNumber }),
        };
  // Another 預金種目 is another account (its type is part of what the bank debits).
  return options.accountType ? { ...base, accountType: effectiveAccountType(options.accountType) } : base;
}

/**
 * CompletePayment's initial_balance: the account the link chose, opened now with that balance (or
 * given it, when the customer approved it before), so the approval debits it.
 */
async function setLinkedAccountBalance(ctx: FlowContext, link: PaymentLinkRecord, balance: number): Promise<void> {
  await ctx.tx.write(async (trx) => {
    const details = await findPendingBankAccount(trx, link.id);
    if (!details) return;
    const account = {
      merchantId: link.merchantId,
      customerId: link.customerId,
      details,
      balance,
      now: ctx.clock.now(),
    };
    await setBankAccountBalance(trx, await openBankAccount(trx, account), balance);
  });
}

/** The merchant's whole simulated bank under maintenance (until a time), or back. */
export async function setBankMaintenance(
  ctx: FlowContext,
  merchantId: string,
  underMaintenance: boolean,
  until: Date | undefined,
): Promise<boolean> {
  await ctx.tx.write(async (trx) => {
    await saveBankSettings(trx, merchantId, {
      underMaintenance,
      maintenanceUntil: underMaintenance && until ? until : null,
    });
    await ctx.audit?.(trx, {
      action: "sandbox.bank_maintenance",
      target: merchantId,
      details: { under_maintenance: underMaintenance, until: until?.toISOString() ?? "" },
    });
  });
  const settings = await findBankSettings(ctx.tx.db, merchantId);
  return settings ? underMaintenanceAt(settings.underMaintenance, settings.maintenanceUntil, ctx.clock.now()) : false;
}

/** Expires an open link now (as if 90 minutes had passed); an expired one is left as it is. */
export async function expirePaymentLinkNow(
  ctx: FlowContext,
  merchantId: string,
  paymentLinkUrl: string,
): Promise<{ chargeStatus: ChargeStatus; contractStatus: ContractStatus }> {
  const link = await merchantLink(ctx, merchantId, paymentLinkUrl);
  if (link.state === "open") await expirePaymentLink(ctx, link.id, { now: true });
  const [charge, contract, current] = await Promise.all([
    link.chargeId ? findCharge(ctx.tx.db, merchantId, link.chargeId) : undefined,
    link.contractId ? findContractById(ctx.tx.db, link.contractId) : undefined,
    findPaymentLinkByToken(ctx.tx.db, link.token),
  ]);
  if (current?.state !== "expired")
    throw new RequestRefusal("precondition", "the payment link has already been approved; it can no longer expire");
  return {
    chargeStatus: charge?.status ?? ChargeStatus.UNSPECIFIED,
    contractStatus: contract?.status ?? ContractStatus.UNSPECIFIED,
  };
}

export function readMailbox(ctx: FlowContext, merchantId: string, email: string): Promise<MailboxMessageRecord[]> {
  return listMailbox(ctx.tx.db, merchantId, { email: email || undefined, limit: 100 });
}

/**
 * The operator's sandbox mailbox (`furikomi sandbox mailbox`): the customer app's sign-in codes and
 * the team's links, which no merchant's key reads (docs/guide/sandbox.md#the-mailbox).
 */
export function readOperatorMailbox(ctx: FlowContext, email: string): Promise<MailboxMessageRecord[]> {
  return readMailbox(ctx, operatorMailbox, email);
}

export interface CompletePaymentOptions {
  /** false: do every step but the approval. */
  approve: boolean;
  kyc: KycOutcome;
  accountNumber: string;
  /** Empty: 0001, the default simulated bank. */
  bankCode?: string;
  /** Unspecified: ordinary (普通). */
  accountType?: BankAccountType;
  initialBalance: number | undefined;
}

export interface CompletedPayment {
  outcome: LinkOutcome;
  chargeId: string;
  customerId: string;
  contractId: string;
  redirectUrl: string;
  /** Set when a step answered result.error. */
  paymentErrorCode: PaymentErrorCode;
  errorMessage: string;
}

/**
 * SandboxService.CompletePayment: the customer's side of a payment link, step by step through the
 * same flows as the page — send the code, read it from the sandbox mailbox, verify it, link the
 * bank account, submit KYC when asked (decided as requested), approve.
 */
export async function completePayment(
  ctx: FlowContext,
  merchantId: string,
  paymentLinkUrl: string,
  options: CompletePaymentOptions,
): Promise<CompletedPayment> {
  const link = await merchantLink(ctx, merchantId, paymentLinkUrl);
  const answer = (fields: Partial<CompletedPayment>): CompletedPayment => ({
    outcome: outcomeOfLink("open", undefined),
    chargeId: link.chargeId ?? "",
    customerId: link.workflow === PaymentWorkflow.ONE_TIME_CHARGE ? "" : link.customerId,
    contractId: link.contractId ?? "",
    redirectUrl: "",
    paymentErrorCode: PaymentErrorCode.UNSPECIFIED,
    errorMessage: "",
    ...fields,
  });

  // The link as the refusal left it: expired, failed by a triggerError, or unchanged.
  const refused = async (error: HostedRefusal) =>
    answer({
      outcome: (await settledOutcome(ctx, link.id)).outcome,
      redirectUrl: error.redirectUrl ?? "",
      paymentErrorCode: error.paymentErrorCode,
      errorMessage: error.message,
    });

  const initiated = await initiatePayment(ctx, link.token);
  if ("error" in initiated) return refused(initiated.error);
  const session = initiated.session;
  if (!session.completed) {
    if (!session.twoFactorVerified) await passTwoFactor(ctx, link);
    if (session.needsBankLink && !session.bankLinked) {
      const chosen = await linkBankAccount(ctx, link.token, await accountToLink(ctx, link, options));
      if (chosen.redirectUrl) await passBankVerification(ctx, link, chosen.redirectUrl);
      if (options.initialBalance !== undefined) await setLinkedAccountBalance(ctx, link, options.initialBalance);
    }
    if (session.needsKyc) await passKyc(ctx, link, session.kycSubmitted, options.kyc);
    if (!options.approve) return answer({});
  }
  const approved = await approvePayment(ctx, link.token);
  if ("error" in approved) return refused(approved.error);
  return answer({ outcome: approved.success.outcome, redirectUrl: approved.success.redirectUrl });
}

/** The test customer at the simulated bank's own page (its test PIN and one-time password), and back. */
async function passBankVerification(ctx: FlowContext, link: PaymentLinkRecord, bankUrl: string): Promise<void> {
  const bank = ctx.verifiers.bankRedirect;
  if (!bank)
    throw new RequestRefusal(
      "precondition",
      "this bank verifies accounts online, which the sandbox bank site is needed for",
    );
  const back = await bank.authoriseAsCustomer(bankUrl, {
    pin: bankAuthenticationRules.sandboxPin,
    oneTimePassword: bankAuthenticationRules.sandboxOneTimePassword,
  });
  const failure = await completeBankReturn(ctx, link.token, {
    state: back.searchParams.get("state") ?? "",
    code: back.searchParams.get("code") ?? "",
    error: back.searchParams.get("error") ?? "",
  });
  if (failure !== BankVerificationFailure.UNSPECIFIED)
    throw new RequestRefusal(
      failure === BankVerificationFailure.LOCKED ? "rate_limited" : "precondition",
      `the simulated bank did not verify the account: ${BankVerificationFailure[failure].toLowerCase()}`,
    );
}

/** Sends a code (or, within the 30-second throttle, takes the one just sent) and enters it from the mailbox. */
async function passTwoFactor(ctx: FlowContext, link: PaymentLinkRecord): Promise<void> {
  try {
    await sendTwoFactorCode(ctx, link.token);
  } catch (error) {
    if (!(error instanceof RequestRefusal && error.kind === "rate_limited")) throw error;
  }
  const [message] = await listMailbox(ctx.tx.db, link.merchantId, { email: link.email, limit: 1 });
  const { verified } = await verifyTwoFactorCode(ctx, link.token, message?.code ?? "");
  if (!verified) throw new RequestRefusal("precondition", "the code in the sandbox mailbox was not accepted");
}

/** Submits the KYC form with what the customer record holds, then decides it as asked (approve by default). */
async function passKyc(
  ctx: FlowContext,
  link: PaymentLinkRecord,
  submitted: boolean,
  outcome: KycOutcome,
): Promise<void> {
  if (!submitted) {
    const customer = await findCustomerById(ctx.tx.db, link.customerId);
    await submitKyc(
      ctx,
      link.token,
      {
        name: customer?.name || "テスト タロウ",
        katakanaLastName: customer?.katakanaLastName || "テスト",
        katakanaFirstName: customer?.katakanaFirstName || "タロウ",
        birthDate: customer?.birthDate || "1990-01-01",
        address: customer?.address || "東京都千代田区千代田1-1",
        gender: customer?.gender ?? "",
      },
      { decide: false },
    );
  }
  if (outcome === KycOutcome.PENDING) return;
  await decideKyc(
    ctx,
    link.merchantId,
    link.customerId,
    outcome === KycOutcome.DENY ? KycStatus.DENIED : KycStatus.APPROVED,
    outcome === KycOutcome.DENY ? "denied by SandboxService.CompletePayment" : "",
  );
}
