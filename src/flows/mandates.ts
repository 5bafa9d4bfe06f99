import { MandateVerification } from "../../gen/payments/v1/enums_pb.js";
import { newId } from "../domain/ids.js";
import { mandateTermsText } from "../domain/mandate-terms.js";
import { currentTermsOf } from "./debit-timing.js";
import { workflowCreatesContract, type PaymentLinkRecord } from "../domain/payment-link.js";
import { findVerifiedAccountOfLink } from "../storage/account-verifications.js";
import { findMandateOfContract, insertMandate, listMandates, type MandateRecord } from "../storage/mandates.js";
import { limits } from "../domain/limits.js";

export type { MandateRecord };
import { lockPaymentLink } from "../storage/payment-links.js";
import type { FlowContext } from "./flow-context.js";

/** Who accepted the terms, and how they reached us. */
export interface ConsentEvidence {
  termsVersion: string;
  clientAddress: string;
  userAgent: string;
}

/**
 * Records the customer's direct-debit mandate when they approve a link that sets up a contract:
 * the terms version, the time, their address and browser, the verified account (sealed, and its
 * hash). Once per link, never edited. The account itself takes effect only with the approval.
 */
export async function recordMandate(
  ctx: FlowContext,
  link: PaymentLinkRecord,
  evidence: ConsentEvidence,
): Promise<void> {
  if (!workflowCreatesContract(link.workflow) || !link.contractId) return;
  const account = await findVerifiedAccountOfLink(ctx.tx.db, link.id);
  if (!account) return;
  const contractId = link.contractId;
  await ctx.tx.write(async (trx) => {
    const current = await lockPaymentLink(ctx.tx, trx, link.id);
    if (current?.state !== "open") return;
    await insertMandate(trx, {
      id: newId("man"),
      merchantId: link.merchantId,
      customerId: link.customerId,
      contractId,
      linkId: link.id,
      verificationId: account.id,
      method: account.method,
      accountSealed: account.accountSealed,
      accountHash: account.accountHash,
      summary: account.summary,
      // The version the page showed (approvePayment refused any other than the current one).
      termsVersion: evidence.termsVersion || currentTermsOf(ctx).version,
      acceptedAt: ctx.clock.now(),
      clientAddress: evidence.clientAddress,
      userAgent: evidence.userAgent.slice(0, limits.auditUserAgentLengthMax),
      // Only a bank's online confirmation has a time; the first debit registers the others.
      verifiedAt: account.method === MandateVerification.BANK_REDIRECT ? account.verifiedAt : null,
    });
  });
}

export function contractMandate(ctx: FlowContext, merchantId: string, contractId: string) {
  return findMandateOfContract(ctx.tx.db, merchantId, contractId);
}

/** The evidence as the bank or a dispute may ask for it: each mandate with the terms text it accepted. */
export async function exportMandates(
  ctx: FlowContext,
  merchantId: string,
  contractId?: string,
): Promise<Array<MandateRecord & { termsText: string }>> {
  const mandates = await listMandates(ctx.tx.db, merchantId, contractId);
  return mandates.map((mandate) => ({ ...mandate, termsText: mandateTermsText(mandate.termsVersion) ?? "" }));
}
