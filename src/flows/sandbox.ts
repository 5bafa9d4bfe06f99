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
import { findBankAccount, ledgerOf, updateBankAccountSettings, upsertBankAccount } from "../storage/bank-accounts.js";
import { findContractById } from "../storage/contracts.js";
import { findCustomerById } from "../storage/customers.js";
import { listMailbox, type MailboxMessageRow } from "../storage/mailbox.js";
import { findPaymentLinkByToken } from "../storage/payment-links.js";
import { findBankSettings, saveBankSettings } from "../storage/sandbox-settings.js";
import type { BankAccountTable, BankLedgerTable } from "../storage/schema.js";
import { findCharge, findCustomer } from "../storage/status-queries.js";
import type { FlowContext } from "./flow-context.js";
import {
  approvePayment,
  initiatePayment,
  linkBankAccount,
  sendTwoFactorCode,
  settledOutcome,
  submitKyc,
  verifyTwoFactorCode,
  type HostedRefusal,
} from "./hosted-page.js";
import { completeBankReturn } from "./account-verification.js";
import { decideKyc } from "./kyc-review.js";
import { expirePaymentLink } from "./link-expiry.js";

const notFound = (what: string) => new PaymentFailure(PaymentErrorCode.NOT_FOUND, `${what} not found`);

/** The calling merchant's payment link, by its URL (or token); another merchant's reads as missing. */
async function merchantLink(ctx: FlowContext, merchantId: string, paymentLinkUrl: string): Promise<PaymentLinkRecord> {
  let token: string;
  try {
    token = tokenOfPaymentLinkUrl(paymentLinkUrl);
  } catch {
    throw new PaymentFailure(
      PaymentErrorCode.BAD_REQUEST,
      "payment_link_url: not a URL",
      undefined,
      "payment_link_url",
    );
  }
  const link = await findPaymentLinkByToken(ctx.tx.db, token);
  if (!link || link.merchantId !== merchantId) throw notFound("payment link");
  return link;
}

function underMaintenanceAt(flag: number, until: string | null, now: Date): boolean {
  return until ? now.toISOString() < until : flag === 1;
}

export interface SimulatedAccount {
  account: BankAccountTable;
  underMaintenance: boolean;
  ledger: Omit<BankLedgerTable, "id">[];
}

export async function getBankAccount(
  ctx: FlowContext,
  merchantId: string,
  customerId: string,
): Promise<SimulatedAccount> {
  const account = await findBankAccount(ctx.tx.db, merchantId, customerId);
  if (!account) throw notFound(`bank account of ${customerId}`);
  return {
    account,
    underMaintenance: underMaintenanceAt(account.under_maintenance, account.maintenance_until, ctx.clock.now()),
    ledger: await ledgerOf(ctx.tx.db, customerId),
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

/** Sets a customer's simulated account; opens one (¥1,000,000) when the customer has none yet. */
export async function configureBankAccount(
  ctx: FlowContext,
  merchantId: string,
  customerId: string,
  settings: BankAccountSettings,
): Promise<SimulatedAccount> {
  const customer = await findCustomer(ctx.tx.db, merchantId, customerId);
  if (!customer) throw notFound(`customer ${customerId}`);
  await ctx.tx.write(async (trx) => {
    const now = ctx.clock.now();
    if (!(await findBankAccount(trx, merchantId, customerId))) {
      await upsertBankAccount(trx, {
        ...simulatedAccountDetails(customer.katakanaLastName),
        customer_id: customerId,
        merchant_id: merchantId,
        balance: 1_000_000,
        created_at: now.toISOString(),
      });
    }
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
  });
  return getBankAccount(ctx, merchantId, customerId);
}

/** Details of an account opened by the sandbox itself (not through the page). */
function simulatedAccountDetails(
  holder: string,
): Pick<BankAccountTable, "bank_code" | "branch_code" | "account_number" | "account_holder"> {
  return {
    bank_code: "0001",
    branch_code: "001",
    account_number: randomInt(0, 10_000_000).toString().padStart(7, "0"),
    account_holder: holder || "テスト",
  };
}

/** The merchant's whole simulated bank under maintenance (until a time), or back. */
export async function setBankMaintenance(
  ctx: FlowContext,
  merchantId: string,
  underMaintenance: boolean,
  until: Date | undefined,
): Promise<boolean> {
  await ctx.tx.write((trx) =>
    saveBankSettings(trx, {
      merchant_id: merchantId,
      under_maintenance: underMaintenance ? 1 : 0,
      maintenance_until: underMaintenance && until ? until.toISOString() : null,
    }),
  );
  const settings = await findBankSettings(ctx.tx.db, merchantId);
  return settings ? underMaintenanceAt(settings.under_maintenance, settings.maintenance_until, ctx.clock.now()) : false;
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

export function readMailbox(ctx: FlowContext, merchantId: string, email: string): Promise<MailboxMessageRow[]> {
  return listMailbox(ctx.tx.db, merchantId, { email: email || undefined, limit: 100 });
}

export interface CompletePaymentOptions {
  /** false: do every step but the approval. */
  approve: boolean;
  kyc: KycOutcome;
  accountNumber: string;
  /** Empty: 0001, the default simulated bank. */
  bankCode?: string;
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
      const chosen = await linkBankAccount(ctx, link.token, {
        bankCode: options.bankCode || "0001",
        branchCode: "001",
        accountType: BankAccountType.ORDINARY,
        accountNumber: options.accountNumber || simulatedAccountDetails("").account_number,
        accountHolder: "テスト タロウ",
      });
      if (chosen.redirectUrl) await passBankVerification(ctx, link, chosen.redirectUrl);
      if (options.initialBalance !== undefined)
        await configureBankAccount(ctx, merchantId, link.customerId, { balance: options.initialBalance });
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
