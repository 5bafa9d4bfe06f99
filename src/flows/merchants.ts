import { PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { newId } from "../domain/ids.js";
import { hashApiKey, newApiKey, newWebhookSecret } from "../domain/api-key.js";
import { PaymentFailure } from "../domain/payment-failure.js";
import { requireSupportContact, type SupportContact } from "../domain/support-contact.js";
import { webhookUrlRefusal } from "../domain/webhook-url.js";
import {
  findMerchant,
  findMerchantByKeyHash,
  insertApiKey,
  insertMerchant,
  listMerchants,
  revokeApiKeys,
  updateSupportContact,
  updateWebhookUrl,
} from "../storage/merchants.js";
import type { FlowContext, MerchantPrincipal } from "./flow-context.js";
import type { OnboardingState } from "../domain/onboarding.js";
import type { Tx } from "../storage/transactor.js";
import { resumeDeliveries } from "./webhook-delivery.js";

export interface CreatedMerchant {
  merchant_id: string;
  name: string;
  api_key: string;
  webhook_url: string;
  webhook_secret: string;
}

/** Provisions a merchant with its first API key; the key is returned once and stored hashed. */
export async function createMerchant(
  ctx: FlowContext,
  input: { name: string; webhookUrl?: string; logoUrl?: string },
): Promise<CreatedMerchant> {
  if (input.webhookUrl) checkWebhookUrl(ctx, input.webhookUrl);
  // The operator made it: nothing to review (docs/reference/errors.md#onboarding).
  const created = await ctx.tx.write((trx) => insertNewMerchant(ctx, trx, { ...input, onboardingState: "complete" }));
  return { ...created, api_key: created.api_key ?? "" };
}

/**
 * Writes a merchant, its webhook secret and (`withApiKey`, the default) its first API key of the
 * deployment's mode, in the caller's transaction; the secrets are returned once.
 */
export async function insertNewMerchant(
  ctx: FlowContext,
  trx: Tx,
  input: {
    name: string;
    webhookUrl?: string;
    logoUrl?: string;
    onboardingState: OnboardingState;
    withApiKey?: boolean;
  },
): Promise<Omit<CreatedMerchant, "api_key"> & { api_key: string | undefined }> {
  const now = ctx.clock.now();
  const merchantId = newId("mer");
  const webhookSecret = newWebhookSecret();
  await insertMerchant(trx, {
    id: merchantId,
    name: input.name,
    logoUrl: input.logoUrl ?? "",
    webhookUrl: input.webhookUrl ?? "",
    webhookSecret,
    onboardingState: input.onboardingState,
    createdAt: now,
  });
  const apiKey = input.withApiKey === false ? undefined : await insertNewApiKey(ctx, trx, merchantId);
  return {
    merchant_id: merchantId,
    name: input.name,
    api_key: apiKey,
    webhook_url: input.webhookUrl ?? "",
    webhook_secret: webhookSecret,
  };
}

/** A new key of the deployment's mode for the merchant, stored hashed; returned once. */
async function insertNewApiKey(ctx: FlowContext, trx: Tx, merchantId: string): Promise<string> {
  const apiKey = newApiKey(ctx.mode.apiKeyPrefix);
  await insertApiKey(trx, {
    id: newId("key"),
    merchantId,
    keyHash: hashApiKey(apiKey),
    prefix: apiKey.slice(0, 12),
    createdAt: ctx.clock.now(),
  });
  return apiKey;
}

/** Refuses a webhook URL the deployment's mode does not allow (production: public https only). */
function checkWebhookUrl(ctx: FlowContext, url: string): void {
  const refusal = webhookUrlRefusal(url, ctx.mode.publicUrlsOnly);
  if (refusal) throw new PaymentFailure(PaymentErrorCode.BAD_REQUEST, refusal, { field: "webhook_url" });
}

/**
 * Sets (or, with "", removes) the merchant's webhook URL. Pending events start a new retry cycle
 * at once, so a fixed endpoint receives them now; the failing mark clears on the next success.
 */
export async function setWebhookUrl(
  ctx: FlowContext,
  merchantId: string,
  url: string,
): Promise<{ merchant_id: string; webhook_url: string }> {
  if (url) checkWebhookUrl(ctx, url);
  const found = await ctx.tx.write(async (trx) => {
    if (!(await updateWebhookUrl(trx, merchantId, url))) return false;
    await resumeDeliveries(trx, merchantId, ctx.clock.now());
    await ctx.audit?.(trx, { action: "webhook.update", target: merchantId, details: { url } });
    return true;
  });
  if (!found) throw new PaymentFailure(PaymentErrorCode.NOT_FOUND, `merchant ${merchantId} not found`);
  ctx.wake("events");
  return { merchant_id: merchantId, webhook_url: url };
}

/** Revokes every key of the merchant and issues a new one. */
export async function rotateApiKey(
  ctx: FlowContext,
  merchantId: string,
): Promise<{ merchant_id: string; api_key: string }> {
  const apiKey = await ctx.tx.write(async (trx) => {
    await revokeApiKeys(trx, merchantId, ctx.clock.now().toISOString());
    return insertNewApiKey(ctx, trx, merchantId);
  });
  return { merchant_id: merchantId, api_key: apiKey };
}

export async function listAllMerchants(ctx: FlowContext) {
  const rows = await listMerchants(ctx.tx.db);
  return rows.map((m) => ({
    merchant_id: m.id,
    name: m.name,
    webhook_url: m.webhookUrl,
    webhook_failing: m.webhookFailing,
    webhook_failing_reason: m.webhookFailingReason,
    created_at: m.createdAt.toISOString(),
  }));
}

/**
 * Returns an authenticator: the merchant an API key authenticates, or undefined (unknown, revoked,
 * or the other mode's key). Verified keys are remembered for API_KEY_CACHE_MS (a revocation takes effect within it), by hash.
 */
export function createAuthenticator(ctx: FlowContext): (apiKey: string) => Promise<MerchantPrincipal | undefined> {
  const cache = new Map<string, { merchant: MerchantPrincipal | undefined; until: number }>();
  const expected = ctx.mode.apiKeyPrefix;
  return async (apiKey) => {
    if (!apiKey.startsWith(expected)) return undefined;
    const keyHash = hashApiKey(apiKey);
    const now = ctx.clock.now().getTime();
    const cached = cache.get(keyHash);
    if (cached && cached.until > now) return cached.merchant;
    const row = await findMerchantByKeyHash(ctx.tx.db, keyHash);
    const merchant = row && { id: row.id, name: row.name };
    if (cache.size > 10_000) cache.clear();
    cache.set(keyHash, { merchant, until: now + ctx.config.apiKeyCacheMs });
    return merchant;
  };
}

/** The support contact customers see on the direct-debit consent screen. */
export async function getSupportContact(ctx: FlowContext, merchantId: string): Promise<SupportContact> {
  const merchant = await findMerchant(ctx.tx.db, merchantId);
  if (!merchant) throw new PaymentFailure(PaymentErrorCode.NOT_FOUND, `merchant ${merchantId} not found`);
  return { email: merchant.supportEmail, phone: merchant.supportPhone, url: merchant.supportUrl };
}

/** Sets the support contact (dashboard settings, `furikomi merchants set-contact`); "" clears a field. */
export async function setSupportContact(
  ctx: FlowContext,
  merchantId: string,
  contact: SupportContact,
): Promise<SupportContact> {
  const checked = requireSupportContact(contact);
  await ctx.tx.write(async (trx) => {
    if (!(await updateSupportContact(trx, merchantId, checked)))
      throw new PaymentFailure(PaymentErrorCode.NOT_FOUND, `merchant ${merchantId} not found`);
    await ctx.audit?.(trx, { action: "support_contact.update", target: merchantId, details: { ...checked } });
  });
  return checked;
}

// The consignor settings moved to flows/zengin-contracts.ts (a merchant may hold several contracts).
export { type ConsignorInput, consignorSettings, updateConsignor } from "./zengin-contracts.js";
