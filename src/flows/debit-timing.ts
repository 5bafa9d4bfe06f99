import { DebitTiming } from "../../gen/payments/v1/enums_pb.js";
import { currentMandateTerms, type MandateTerms } from "../domain/mandate-terms.js";
import { isLinkSettled, type PaymentLinkRecord } from "../domain/payment-link.js";
import type { FlowContext } from "./flow-context.js";
import { chargeDebitDate } from "./status.js";

/**
 * When the customer's account is debited, as the hosted page tells it (docs/guide/hosted-page.md#when-the-account-is-debited):
 * at the approval, or on a debit date (振替日). Learned from the bank gateway the composition root
 * wired (a bank that debits on a date answers `debitDateFor`), never from the configuration.
 */
export function debitTimingOf(ctx: FlowContext): DebitTiming {
  return ctx.bank.debitDateFor ? DebitTiming.ON_DEBIT_DATE : DebitTiming.AT_APPROVAL;
}

/** The direct-debit terms a customer accepts today: the version that says when they are debited. */
export function currentTermsOf(ctx: FlowContext): MandateTerms {
  return currentMandateTerms(debitTimingOf(ctx));
}

/**
 * The debit date the page states for a link's charge: the charge's own once its debit is
 * scheduled; before, while the link is open, the date a charge approved now would get for the
 * account chosen (or the contract's), or the one date all the merchant's contracts give before
 * an account is chosen. Undefined at approval timing, for a contract-only link, and when there is
 * no one date to tell.
 */
export async function linkDebitDate(
  ctx: FlowContext,
  link: PaymentLinkRecord,
  bankCode: string | undefined,
): Promise<string | undefined> {
  if (!ctx.bank.debitDateFor || !link.chargeId) return undefined;
  const scheduled = await chargeDebitDate(ctx, link.chargeId);
  if (scheduled || isLinkSettled(link.state)) return scheduled;
  return ctx.bank.debitDateFor(ctx.tx.db, { merchantId: link.merchantId, bankCode, at: ctx.clock.now() });
}
