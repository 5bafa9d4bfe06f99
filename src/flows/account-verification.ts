import { createHash } from "node:crypto";
import { requireBankInContracts } from "./contract-scope.js";
import { BankVerificationFailure, MandateVerification } from "../../gen/payments/v1/enums_pb.js";
import {
  canonicalAccount,
  parseAccount,
  serialiseAccount,
  summariseAccount,
  type BankAccountDetails,
  type BankAccountSummaryView,
} from "../domain/bank-account.js";
import { bankDisplayName, branchDisplayName } from "../domain/bank-directory.js";
import { bankProfileOf } from "../domain/bank-profile.js";
import { newId, randomToken } from "../domain/ids.js";
import type { PaymentLinkRecord } from "../domain/payment-link.js";
import { validationFailure } from "../domain/payment-failure.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { bankMaster } from "../ports/bank-master.js";
import type { MandateVerifier } from "../ports/mandate-verifier.js";
import {
  finishAccountVerification,
  findVerificationByState,
  insertAccountVerification,
  lockAccountVerification,
} from "../storage/account-verifications.js";
import { savePendingBankAccount } from "../storage/bank-accounts.js";
import { findPaymentLinkByToken, lockPaymentLink, markPaymentLinkStep } from "../storage/payment-links.js";
import { keyedHash, unseal } from "../storage/sealed.js";
import type { Tx } from "../storage/transactor.js";
import type { FlowContext } from "./flow-context.js";
import { limits } from "../domain/limits.js";

/** A round trip to the bank must come back within 10 minutes. */
export const accountVerificationRules = Object.freeze({ validityMs: limits.accountVerificationValidityMs });

export const hashState = (state: string) => createHash("sha256").update(`bank-state:${state}`).digest("hex");

/** Online at the bank's own page where the bank offers it (in sandbox: the 99xx banks), else with the first debit. */
function verifierFor(ctx: FlowContext, bankCode: string): MandateVerifier {
  const online = bankProfileOf(bankCode).authentication ? ctx.verifiers.bankRedirect : undefined;
  return online ?? ctx.verifiers.firstDebit;
}

/** The bank's and branch's names in full, from the Zengin master (empty where it has none). */
export function directoryNames(ctx: FlowContext, bankCode: string, branchCode: string) {
  const bank = bankMaster(ctx.mode.simulatedBanks)[bankCode];
  const branch = bank?.branches[branchCode];
  return {
    bankName: bank ? bankDisplayName(bank) : "",
    branchName: bank && branch ? branchDisplayName(bankCode, branch) : "",
  };
}

/** A bank the master knows must be given one of its branches. */
function requireKnownBranch(ctx: FlowContext, bankCode: string, branchCode: string): void {
  const bank = bankMaster(ctx.mode.simulatedBanks)[bankCode];
  if (bank && !bank.branches[branchCode])
    throw validationFailure("branch_code", `${bankDisplayName(bank)} has no branch ${branchCode}`);
}

/**
 * Where the bank sends the customer back: the page's own origin when it is the service's public
 * one (or, in sandbox, a loopback address, as in local tests), else PUBLIC_BASE_URL.
 */
export function returnOrigin(ctx: FlowContext, pageOrigin: string | undefined): string {
  const publicOrigin = new URL(ctx.config.publicBaseUrl).origin;
  if (!pageOrigin) return publicOrigin;
  try {
    const origin = new URL(pageOrigin);
    const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(origin.hostname);
    if (origin.origin === publicOrigin || (ctx.mode.sandboxTools && loopback)) return origin.origin;
  } catch {
    // not a URL: the public origin
  }
  return publicOrigin;
}

export interface ChosenAccount {
  linked: boolean;
  /** Set when the customer goes to the bank's page. */
  redirectUrl: string;
  summary: BankAccountSummaryView;
  method: MandateVerification;
}

/**
 * The account the customer chose for the link, recorded sealed. Where the bank verifies online
 * the verification waits for the customer's return from the bank; elsewhere the account is
 * linked now, to be registered with the first debit.
 */
export async function chooseAccount(
  ctx: FlowContext,
  link: PaymentLinkRecord,
  account: BankAccountDetails,
  pageOrigin: string | undefined,
): Promise<ChosenAccount> {
  requireKnownBranch(ctx, account.bankCode, account.branchCode);
  await requireBankInContracts(ctx, link.merchantId, account.bankCode);
  const verifier = verifierFor(ctx, account.bankCode);
  const id = newId("bvr");
  const state = randomToken(32);
  const returnUrl = `${returnOrigin(ctx, pageOrigin)}/pay/${link.token}/bank-return`;
  const start = await verifier.start({ verificationId: id, state, returnUrl });
  const summary = summariseAccount(account, directoryNames(ctx, account.bankCode, account.branchCode));
  await ctx.tx.write(async (trx) => {
    const now = ctx.clock.now();
    const current = await lockPaymentLink(ctx.tx, trx, link.id);
    if (current?.state !== "open") throw new RequestRefusal("precondition", "this payment has already been approved");
    await insertAccountVerification(trx, {
      id,
      linkId: link.id,
      method: verifier.method,
      stateHash: hashState(state),
      returnUrl,
      account: serialiseAccount(account),
      accountHash: keyedHash(canonicalAccount(account)),
      summary,
      status: start.kind === "redirect" ? "pending" : "verified",
      failure: BankVerificationFailure.UNSPECIFIED,
      createdAt: now,
      expiresAt: new Date(now.getTime() + accountVerificationRules.validityMs),
      verifiedAt: start.kind === "redirect" ? null : now,
      codeHash: null,
      codeIssuedAt: null,
      codeUsedAt: null,
    });
    if (start.kind === "first_debit") await linkAccount(trx, link, account, now);
  });
  return {
    linked: start.kind === "first_debit",
    redirectUrl: start.kind === "redirect" ? start.url : "",
    summary,
    method: verifier.method,
  };
}

/**
 * The verified account becomes the link's: held on the link, it becomes the customer's account
 * only when the payment is approved (flows/payment-link-transition.ts).
 */
async function linkAccount(trx: Tx, link: PaymentLinkRecord, account: BankAccountDetails, now: Date): Promise<void> {
  await savePendingBankAccount(trx, { linkId: link.id, details: account, linkedAt: now });
  await markPaymentLinkStep(trx, link.id, "bank_linked", now);
}

export interface BankReturn {
  state: string;
  code: string;
  /** The bank's error: access_denied (cancelled) or locked. */
  error: string;
}

/**
 * The customer is back from the bank (GET /pay/{token}/bank-return). Nothing in the query is
 * trusted alone: the state must be the one this link's verification started with, and the code
 * is confirmed with the bank server to server (once: a replayed code is refused). Answers
 * UNSPECIFIED when the account is now linked, else why not; a failure activates nothing.
 */
export async function completeBankReturn(
  ctx: FlowContext,
  token: string,
  answer: BankReturn,
): Promise<BankVerificationFailure> {
  const link = await findPaymentLinkByToken(ctx.tx.db, token);
  const verification =
    link && answer.state && (await findVerificationByState(ctx.tx.db, link.id, hashState(answer.state)));
  if (!link || !verification) return BankVerificationFailure.STATE_MISMATCH;
  if (verification.status !== "pending") return BankVerificationFailure.CODE_REJECTED;
  const fail = async (failure: BankVerificationFailure) => {
    await ctx.tx.write((trx) => finishAccountVerification(trx, verification.id, { status: "failed", failure }));
    return failure;
  };
  if (answer.error)
    return fail(answer.error === "locked" ? BankVerificationFailure.LOCKED : BankVerificationFailure.CANCELLED);
  if (ctx.clock.now() > verification.expiresAt || link.state !== "open") return fail(BankVerificationFailure.EXPIRED);
  const verifier = ctx.verifiers.bankRedirect;
  const confirmed = verifier && answer.code ? await verifier.confirm(verification.id, answer.code) : undefined;
  if (!confirmed?.ok) return fail(BankVerificationFailure.CODE_REJECTED);
  return ctx.tx.write(async (trx) => {
    const now = ctx.clock.now();
    const current = await lockAccountVerification(ctx.tx, trx, verification.id);
    if (current?.status !== "pending") return BankVerificationFailure.CODE_REJECTED;
    const currentLink = await lockPaymentLink(ctx.tx, trx, link.id);
    if (currentLink?.state !== "open") {
      await finishAccountVerification(trx, verification.id, {
        status: "failed",
        failure: BankVerificationFailure.EXPIRED,
      });
      return BankVerificationFailure.EXPIRED;
    }
    await finishAccountVerification(trx, verification.id, { status: "verified", at: now });
    await linkAccount(trx, currentLink, parseAccount(unseal(current.accountSealed)), now);
    return BankVerificationFailure.UNSPECIFIED;
  });
}
