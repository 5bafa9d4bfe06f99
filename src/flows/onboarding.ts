import { EventType, PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import {
  checkBusinessDetails,
  merchantTermsVersion,
  missingItems,
  requireEditable,
  type BusinessDetails,
  type OnboardingChecklist,
} from "../domain/onboarding-checklist.js";
import type { OnboardingState } from "../domain/onboarding.js";
import { PaymentFailure } from "../domain/payment-failure.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { findEvent } from "../storage/events.js";
import { findMerchant, moveOnboardingState } from "../storage/merchants.js";
import { findSavedChecklist, saveChecklist } from "../storage/onboarding-checklists.js";
import type { Tx } from "../storage/transactor.js";
import { listContracts } from "../storage/zengin.js";
import type { DashboardPrincipal } from "./dashboard-auth.js";
import type { FlowContext } from "./flow-context.js";
import { sendTestEvent } from "./sandbox-events.js";

/**
 * The going-live checklist (docs/guide/getting-started.md#the-checklist): what the merchant saved,
 * with the items that live elsewhere read where they live (its 口座振替 contracts, the delivery of
 * its webhook test event).
 */
export async function getChecklist(ctx: FlowContext, merchantId: string): Promise<OnboardingChecklist> {
  const state = await stateOf(ctx.tx.db, merchantId);
  const saved = await findSavedChecklist(ctx.tx.db, merchantId);
  const testEvent = saved.webhookTestEventId
    ? await findEvent(ctx.tx.db, merchantId, saved.webhookTestEventId)
    : undefined;
  return {
    state,
    business: saved.business,
    zenginContract: (await listContracts(ctx.tx.db, merchantId)).length > 0,
    webhookAnswered: testEvent?.deliveredAt != null,
    termsVersion: saved.termsVersion,
    termsAcceptedAt: saved.termsAcceptedAt,
    sentBackReason: saved.sentBackReason,
  };
}

async function stateOf(db: Tx, merchantId: string): Promise<OnboardingState> {
  const merchant = await findMerchant(db, merchantId);
  if (!merchant) throw new PaymentFailure(PaymentErrorCode.NOT_FOUND, `merchant ${merchantId} not found`);
  return merchant.onboardingState;
}

/** Saves one item, audited, while the checklist is the merchant's to change. */
async function saveItem(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  item: string,
  write: (trx: Tx, now: Date) => Promise<void>,
): Promise<OnboardingChecklist> {
  await ctx.tx.write(async (trx) => {
    requireEditable(await stateOf(trx, principal.merchant.id));
    await write(trx, ctx.clock.now());
    await ctx.audit?.(trx, { action: "onboarding.update", target: principal.merchant.id, details: { item } });
  });
  return getChecklist(ctx, principal.merchant.id);
}

export function saveBusinessDetails(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  details: BusinessDetails,
): Promise<OnboardingChecklist> {
  const checked = checkBusinessDetails(details);
  return saveItem(ctx, principal, "business", (trx, now) =>
    saveChecklist(trx, principal.merchant.id, { business: checked }, now),
  );
}

/** The terms as they are now: an older version is refused, so the merchant accepts what it read. */
export function acceptTerms(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  version: string,
): Promise<OnboardingChecklist> {
  if (version !== merchantTermsVersion)
    throw new RequestRefusal("precondition", `the current terms are version ${merchantTermsVersion}`, {
      reason: "TERMS_VERSION_OUTDATED",
      facts: { version: merchantTermsVersion },
    });
  return saveItem(ctx, principal, "terms", (trx, now) =>
    saveChecklist(
      trx,
      principal.merchant.id,
      { termsVersion: version, termsAcceptedAt: now, termsAcceptedBy: principal.userId },
      now,
    ),
  );
}

/**
 * A signed test event (EVENT_TYPE_TEST_CHARGE_CREATED, made-up content) to the merchant's webhook
 * URL through the outbox, as SandboxService.SendTestEvent sends one: the item is done once the
 * endpoint answered it 2xx (retried as any event until then).
 */
export async function sendWebhookTestEvent(ctx: FlowContext, principal: DashboardPrincipal): Promise<string> {
  requireEditable(await stateOf(ctx.tx.db, principal.merchant.id));
  const eventId = await sendTestEvent(ctx, principal.merchant, EventType.TEST_CHARGE_CREATED);
  await saveItem(ctx, principal, "webhook", (trx, now) =>
    saveChecklist(trx, principal.merchant.id, { webhookTestEventId: eventId }, now),
  );
  return eventId;
}

/** Hands the checklist to the operator: every item done, else refused naming what is missing. */
export async function submitChecklist(ctx: FlowContext, principal: DashboardPrincipal): Promise<OnboardingChecklist> {
  const checklist = await getChecklist(ctx, principal.merchant.id);
  requireEditable(checklist.state);
  const missing = missingItems(checklist);
  if (missing.length > 0)
    throw new RequestRefusal("precondition", `the going-live checklist is not finished: ${missing.join(", ")}`, {
      reason: "ONBOARDING_INCOMPLETE",
      facts: { missing: missing.join(",") },
    });
  await moveState(ctx, principal.merchant.id, "incomplete", "in_review", async (trx) => {
    await ctx.audit?.(trx, { action: "onboarding.submit", target: principal.merchant.id });
  });
  return getChecklist(ctx, principal.merchant.id);
}

/**
 * Moves the merchant from `from` (any state but `to` when "any") to `to` in one transaction with
 * `alsoWrite`; refused (ONBOARDING_STATE_CONFLICT) when the merchant was not in `from`.
 */
export async function moveState(
  ctx: FlowContext,
  merchantId: string,
  from: OnboardingState | "any",
  to: OnboardingState,
  alsoWrite: (trx: Tx) => Promise<void>,
): Promise<void> {
  await ctx.tx.write(async (trx) => {
    if (!(await moveOnboardingState(trx, merchantId, from, to))) {
      const state = await stateOf(trx, merchantId);
      throw new RequestRefusal("precondition", `the merchant is ${state}, not ${from}`, {
        reason: "ONBOARDING_STATE_CONFLICT",
        facts: { state },
      });
    }
    await alsoWrite(trx);
  });
}
