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
import { resumeDeliveries } from "./webhook-delivery.js";
import { normaliseBankKana } from "../domain/kana.js";
import { parseWidenedCharacters } from "../domain/zengin-characters.js";
import { findConsignor, findConsignorByCode, saveConsignor } from "../storage/zengin.js";
import type { ConsignorSettings } from "../domain/zengin-records.js";

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
  const now = ctx.clock.now().toISOString();
  const merchantId = newId("mer");
  const apiKey = newApiKey(ctx.mode.apiKeyPrefix);
  const webhookSecret = newWebhookSecret();
  await ctx.tx.write(async (trx) => {
    await insertMerchant(trx, {
      id: merchantId,
      name: input.name,
      logoUrl: input.logoUrl ?? "",
      webhookUrl: input.webhookUrl ?? "",
      webhookSecret,
      createdAt: new Date(now),
    });
    await insertApiKey(trx, {
      id: newId("key"),
      merchantId,
      keyHash: hashApiKey(apiKey),
      prefix: apiKey.slice(0, 12),
      createdAt: new Date(now),
    });
  });
  return {
    merchant_id: merchantId,
    name: input.name,
    api_key: apiKey,
    webhook_url: input.webhookUrl ?? "",
    webhook_secret: webhookSecret,
  };
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
  const now = ctx.clock.now().toISOString();
  const apiKey = newApiKey(ctx.mode.apiKeyPrefix);
  await ctx.tx.write(async (trx) => {
    await revokeApiKeys(trx, merchantId, now);
    await insertApiKey(trx, {
      id: newId("key"),
      merchantId,
      keyHash: hashApiKey(apiKey),
      prefix: apiKey.slice(0, 12),
      createdAt: new Date(now),
    });
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

/** `merchants update --consignor-…`: the merchant's Zengin consignor settings (委託者). */
export interface ConsignorInput {
  code: string;
  name: string;
  bankCode: string;
  bankName?: string;
  branchCode: string;
  branchName?: string;
  accountType: string;
  accountNumber: string;
  /** A monthly debit day, 1–28 ("" or absent: ZENGIN_LEAD_DAYS business days after acceptance). */
  debitDay?: string;
  /**
   * Characters the consignor's bank accepts in names beyond the 全銀協 rules, some of `( ) - . /`
   * (docs/guide/direct-debit-files.md#characters-in-names); absent keeps what is set.
   */
  nameCharacters?: string;
}

/**
 * Saves the consignor settings after checking each field can be written in a Zengin file (kana
 * names are normalised to half-width as account holders are): refused here, never at file time.
 */
export async function updateConsignor(ctx: FlowContext, merchantId: string, input: ConsignorInput) {
  const refuse = (field: string, reason: string) =>
    new PaymentFailure(PaymentErrorCode.BAD_REQUEST, `${field}: ${reason}`);
  const digits = (field: string, value: string, length: number) => {
    if (!new RegExp(`^\\d{${length}}$`).test(value)) throw refuse(field, `must be ${length} digits`);
    return value;
  };
  const widening = parseWidenedCharacters(
    input.nameCharacters ?? (await findConsignor(ctx.tx.db, merchantId))?.nameCharacters ?? "",
  );
  if (!widening.ok) throw refuse("consignor-name-characters", widening.reason);
  const widened = widening.value;
  const kana = (field: string, value: string, length: number, optional = false) => {
    if (optional && value.trim() === "") return "";
    const bankName = field !== "consignor-name";
    const result = normaliseBankKana(value, length, bankName ? { rule: "bank-name" } : { widened });
    if (!result.ok) throw refuse(field, result.reason);
    return result.value;
  };
  const debitDayOf = (value: string) => {
    if (value === "") return 0;
    if (!/^\d{1,2}$/.test(value) || Number(value) < 1 || Number(value) > 28)
      throw refuse("debit-day", "must be 1 to 28");
    return Number(value);
  };
  if (!["1", "2", "9"].includes(input.accountType))
    throw refuse("consignor-account-type", "must be 1 (普通), 2 (当座) or 9 (その他)");
  const settings: ConsignorSettings = {
    merchantId,
    code: digits("consignor-code", input.code, 10),
    name: kana("consignor-name", input.name, 40),
    bankCode: digits("consignor-bank", input.bankCode, 4),
    bankName: kana("consignor-bank-name", input.bankName ?? "", 15, true),
    branchCode: digits("consignor-branch", input.branchCode, 3),
    branchName: kana("consignor-branch-name", input.branchName ?? "", 15, true),
    accountType: Number(input.accountType),
    accountNumber: digits("consignor-account", input.accountNumber, 7),
    debitDay: debitDayOf(input.debitDay ?? ""),
    nameCharacters: widened,
    updatedAt: ctx.clock.now(),
  };
  await ctx.tx.write(async (trx) => {
    if (!(await findMerchant(trx, merchantId)))
      throw new PaymentFailure(PaymentErrorCode.NOT_FOUND, `merchant ${merchantId} not found`);
    const holder = await findConsignorByCode(trx, settings.code);
    if (holder && holder.merchantId !== merchantId)
      throw refuse("consignor-code", `${settings.code} is already another merchant's consignor code`);
    await saveConsignor(trx, settings);
    await ctx.audit?.(trx, { action: "consignor.update", target: merchantId, details: { code: settings.code } });
  });
  return settings;
}

/** The merchant's consignor settings as `updateConsignor` takes them ("" when none are set). */
export async function consignorSettings(ctx: FlowContext, merchantId: string): Promise<ConsignorInput> {
  const settings = await findConsignor(ctx.tx.db, merchantId);
  return {
    code: settings?.code ?? "",
    name: settings?.name ?? "",
    bankCode: settings?.bankCode ?? "",
    bankName: settings?.bankName ?? "",
    branchCode: settings?.branchCode ?? "",
    branchName: settings?.branchName ?? "",
    accountType: settings ? String(settings.accountType) : "",
    accountNumber: settings?.accountNumber ?? "",
    debitDay: settings?.debitDay ? String(settings.debitDay) : "",
    nameCharacters: settings?.nameCharacters ?? "",
  };
}
