import {
  ApiSource,
  ContractStatus,
  KycStatus,
  PaymentAuthorizationStatus,
  PaymentWorkflow,
} from "../../gen/payments/v1/enums_pb.js";
import { newPendingCharge } from "../domain/charge.js";
import { withSuppliedFields, type CustomerProfile } from "../domain/customer.js";
import { newId, randomToken } from "../domain/ids.js";
import { chargingBlock, chargingRefusals } from "../domain/onboarding.js";
import { chooseOnSessionWorkflow, onSessionInternalError } from "../domain/on-session-workflow.js";
import { PaymentFailure } from "../domain/payment-failure.js";
import {
  linkExpiresAt,
  workflowCharges,
  workflowCreatesContract,
  type PaymentLinkRecord,
} from "../domain/payment-link.js";
import type { ChargeRecord, ContractRecord, CustomerRecord, Metadata } from "../domain/records.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { checkRedirectUrls } from "../domain/redirect-url.js";
import { enqueueJob } from "../storage/jobs.js";
import { insertCharge } from "../storage/charges.js";
import { findActivatedContracts, insertContract } from "../storage/contracts.js";
import {
  findCustomerById,
  insertCustomer,
  lockCustomer,
  lockCustomerByEmail,
  saveCustomer,
} from "../storage/customers.js";
import { findMerchant } from "../storage/merchants.js";
import { findPaymentLinkWithToken, insertPaymentLink } from "../storage/payment-links.js";
import { isUniqueViolation } from "../storage/transactor.js";
import type { FlowContext, MerchantPrincipal } from "./flow-context.js";
import { bindIdempotentResource, IdempotencyKeyTaken, type IdempotencyScope } from "./idempotency.js";

/** An on-session request, decoded (docs/reference/contract.md#on-session: the buyer, charge and redirect groups). */
export interface OnSessionRequest {
  buyer: CustomerProfile & { email: string; customerId: string; forceKyc: boolean; metadata: Metadata };
  charge: { price: number | undefined; description: string; metadata: Metadata; oneOff: boolean };
  redirect: { successUrl: string; failureUrl: string };
}

export interface OnSessionPaymentCreated {
  link: PaymentLinkRecord;
  customer: CustomerRecord;
  /** The payment link: {PUBLIC_BASE_URL}/pay/<token>. */
  url: string;
}

/** Payment-link tokens: 32 base32 characters, 160 random bits. */
const tokenLength = 32;

/**
 * CreateOnSessionPayment: finds or creates the customer (the e-mail reuse rule), chooses the
 * workflow, and in one transaction writes the customer, the contract (new customers), the
 * trx-* charge in PENDING (workflows with a price), the payment link, and the "link-expiry" job
 * due when the link lapses (90 minutes), and binds the link to the request's idempotency key: a
 * retry after a crash before the answer was stored answers that link again.
 */
export async function createOnSessionPayment(
  ctx: FlowContext,
  principal: MerchantPrincipal,
  request: OnSessionRequest,
  idempotency?: IdempotencyScope,
): Promise<OnSessionPaymentCreated> {
  checkRedirectUrls(request.redirect, ctx.mode.publicUrlsOnly);
  const resumed = idempotency?.resumeResourceId ? await resumedPayment(ctx, idempotency.resumeResourceId) : undefined;
  if (resumed) return resumed;
  try {
    const merchant = await findMerchant(ctx.tx.db, principal.id);
    if (!merchant) throw new RequestRefusal("unauthenticated", "unknown merchant");
    const blocked = chargingBlock(merchant.onboardingState, ctx.mode.liveMoney);
    if (blocked) throw chargingRefusals.onSession(blocked);
    try {
      return await createInOneTransaction(ctx, principal, request, idempotency);
    } catch (error) {
      // Two first requests for one e-mail raced to create the customer: this one reuses it.
      if (isUniqueViolation(error)) return await createInOneTransaction(ctx, principal, request, idempotency);
      throw error;
    }
  } catch (error) {
    // A key taken by a concurrent first use is no failure of this flow: the request starts again.
    if (error instanceof PaymentFailure || error instanceof RequestRefusal || error instanceof IdempotencyKeyTaken)
      throw error;
    throw onSessionInternalError(error);
  }
}

async function createInOneTransaction(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  request: OnSessionRequest,
  idempotency: IdempotencyScope | undefined,
): Promise<OnSessionPaymentCreated> {
  const token = randomToken(tokenLength);
  const created = await ctx.tx.write(async (trx) => {
    const now = ctx.clock.now();
    const byCustomerId = request.buyer.customerId !== "";
    const existing = byCustomerId
      ? await lockCustomer(ctx.tx, trx, merchant.id, request.buyer.customerId)
      : await lockCustomerByEmail(ctx.tx, trx, merchant.id, request.buyer.email);
    const activeContract = existing ? (await findActivatedContracts(trx, existing.id))[0] : undefined;
    const workflow = chooseOnSessionWorkflow({
      byCustomerId,
      price: request.charge.price,
      oneOff: request.charge.oneOff,
      customer: existing && { activeContract: activeContract !== undefined },
    });

    // customer_id names the customer: its e-mail on file is kept. By e-mail, the supplied fields update it.
    const supplied = { ...request.buyer, email: byCustomerId ? undefined : request.buyer.email };
    const customer = existing
      ? { ...withSuppliedFields(existing, supplied, now), linkInitialized: true }
      : newCustomer(merchant.id, request.buyer, now);
    if (existing) await saveCustomer(trx, customer);
    else await insertCustomer(trx, customer);

    let contract: ContractRecord | undefined;
    if (workflowCreatesContract(workflow)) {
      contract = {
        id: newId("con"),
        merchantId: merchant.id,
        customerId: customer.id,
        status: ContractStatus.INITIAL,
        metadata: customer.metadata,
        createdAt: now,
        updatedAt: now,
        // Set when its approval is claimed, to the account the link's bank step chose.
        bankAccountId: null,
      };
      await insertContract(trx, contract);
    } else if (workflow === PaymentWorkflow.CHARGE) {
      contract = activeContract;
    }

    const linkId = newId("chg");
    let charge: ChargeRecord | undefined;
    if (workflowCharges(workflow) && request.charge.price !== undefined) {
      charge = newPendingCharge(
        {
          id: newId("trx"),
          merchantId: merchant.id,
          // One-off too: the charge keeps who paid (refunds go back there); the merchant is not shown the id.
          customerId: customer.id,
          contractId: contract?.id ?? null,
          onSessionId: linkId,
          requestId: null,
          apiSource: ApiSource.ON_SESSION,
          amount: request.charge.price,
          description: request.charge.description,
          metadata: request.charge.metadata,
        },
        now,
      );
      await insertCharge(trx, charge);
    }

    const link: PaymentLinkRecord = {
      id: linkId,
      merchantId: merchant.id,
      token,
      workflow,
      customerId: customer.id,
      contractId: contract?.id ?? null,
      chargeId: charge?.id ?? null,
      price: request.charge.price ?? 0,
      description: request.charge.description,
      metadata: request.charge.metadata,
      email: customer.email,
      forceKyc: request.buyer.forceKyc,
      successUrl: request.redirect.successUrl,
      failureUrl: request.redirect.failureUrl,
      state: "open",
      twoFactorVerified: false,
      bankLinked: false,
      kycSubmitted: false,
      expiresAt: linkExpiresAt(now),
      completedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await insertPaymentLink(trx, link);
    await enqueueJob(trx, { kind: "link-expiry", refId: link.id, runAt: link.expiresAt, now });
    await bindIdempotentResource(trx, idempotency, link.id);
    return { link, customer };
  });
  return { ...created, url: linkUrl(ctx, token) };
}

/**
 * What an earlier attempt under the same idempotency key created before its process died (its
 * link, bound to the key in the transaction that wrote it): answered again, not created twice.
 */
async function resumedPayment(ctx: FlowContext, linkId: string): Promise<OnSessionPaymentCreated | undefined> {
  const link = await findPaymentLinkWithToken(ctx.tx.db, linkId);
  const customer = link && (await findCustomerById(ctx.tx.db, link.customerId));
  return link?.token && customer ? { link, customer, url: linkUrl(ctx, link.token) } : undefined;
}

function linkUrl(ctx: FlowContext, token: string): string {
  return `${ctx.config.publicBaseUrl}/pay/${token}`;
}

function newCustomer(merchantId: string, buyer: OnSessionRequest["buyer"], now: Date): CustomerRecord {
  return {
    id: newId("cus"),
    merchantId,
    email: buyer.email.trim(),
    name: buyer.name.trim(),
    katakanaLastName: buyer.katakanaLastName.trim(),
    katakanaFirstName: buyer.katakanaFirstName.trim(),
    address: buyer.address.trim(),
    birthDate: buyer.birthDate,
    gender: buyer.gender,
    metadata: { ...buyer.metadata },
    kycStatus: KycStatus.NOT_SUBMITTED,
    kycRejectionReason: "",
    paymentStatus: PaymentAuthorizationStatus.NOT_AUTHORIZED,
    linkInitialized: true,
    activated: false,
    createdAt: now,
    updatedAt: now,
  };
}
