import { PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { hashApiKey, newApiKey, newWebhookSecret } from "../domain/api-key.js";
import { newId } from "../domain/ids.js";
import { decodePageToken, encodePageToken, pageSize } from "../domain/page-token.js";
import { PaymentFailure } from "../domain/payment-failure.js";
import type { ChargeRecord, ContractRecord, CustomerRecord, RefundRecord } from "../domain/records.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import {
  apiKeysOfMerchant,
  contractsOfCustomer,
  listChargesOfMerchant,
  refundsOfCharges,
  revokeApiKey,
  setWebhookSecret,
} from "../storage/dashboard-queries.js";
import { findMerchant, insertApiKey } from "../storage/merchants.js";
import { findCustomer } from "../storage/status-queries.js";
import type { FlowContext, MerchantPrincipal } from "./flow-context.js";
import { setWebhookUrl } from "./merchants.js";
import { getCharge, getCustomer } from "./status.js";

/** The dashboard's reads and settings beyond what PaymentService already offers (docs/guide/dashboard.md). */

export interface ChargeWithRefunds {
  charge: ChargeRecord;
  refunds: RefundRecord[];
}

/** A customer's page: statuses, contracts, and every charge (triggered test errors included) with its refunds. */
export async function customerDetail(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  customerId: string,
): Promise<{ customer: CustomerRecord; contracts: ContractRecord[]; charges: ChargeWithRefunds[] }> {
  const customer = await getCustomer(ctx, merchant, customerId);
  const [contracts, charges] = await Promise.all([
    contractsOfCustomer(ctx.tx.db, merchant.id, customer.id),
    listChargesOfMerchant(ctx.tx.db, merchant.id, { customerId: customer.id, limit: 500 }),
  ]);
  return { customer, contracts, charges: await withRefunds(ctx, charges) };
}

export async function listCharges(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  query: { customerId: string; pageSize: number; pageToken: string },
): Promise<{ charges: ChargeWithRefunds[]; nextPageToken: string }> {
  const limit = pageSize(query.pageSize);
  const rows = await listChargesOfMerchant(ctx.tx.db, merchant.id, {
    customerId: query.customerId || undefined,
    limit: limit + 1,
    after: decodePageToken(query.pageToken),
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    charges: await withRefunds(ctx, page),
    nextPageToken:
      rows.length > limit && last ? encodePageToken({ createdAt: last.createdAt.toISOString(), id: last.id }) : "",
  };
}

/** A charge with its most recent refunds (as GetCharge carries them), and its customer when it has one. */
export async function chargeDetail(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  chargeId: string,
): Promise<ChargeWithRefunds & { refundsTruncated: boolean; customer: CustomerRecord | undefined }> {
  const { charge, refunds, refundsTruncated } = await getCharge(ctx, merchant, chargeId);
  const customer = charge.customerId ? await findCustomer(ctx.tx.db, merchant.id, charge.customerId) : undefined;
  return { charge, refunds, refundsTruncated, customer };
}

async function withRefunds(ctx: FlowContext, charges: ChargeRecord[]): Promise<ChargeWithRefunds[]> {
  const refunds = await refundsOfCharges(
    ctx.tx.db,
    charges.map((c) => c.id),
  );
  return charges.map((charge) => ({ charge, refunds: refunds.get(charge.id) ?? [] }));
}

export interface ApiKeyView {
  id: string;
  prefix: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export async function listApiKeys(ctx: FlowContext, merchant: MerchantPrincipal): Promise<ApiKeyView[]> {
  const rows = await apiKeysOfMerchant(ctx.tx.db, merchant.id);
  return rows.map((row) => ({
    id: row.id,
    prefix: row.prefix,
    createdAt: new Date(row.created_at),
    revokedAt: row.revoked_at ? new Date(row.revoked_at) : null,
  }));
}

/**
 * One more API key beside the existing ones (so a merchant can roll keys without downtime:
 * create, deploy, revoke the old one). Shown once, stored hashed.
 */
export async function createApiKey(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
): Promise<{ key: ApiKeyView; secret: string }> {
  const now = ctx.clock.now();
  const secret = newApiKey(ctx.config.mode);
  const key = { id: newId("key"), prefix: secret.slice(0, 12), createdAt: now, revokedAt: null };
  await ctx.tx.write((trx) =>
    insertApiKey(trx, {
      id: key.id,
      merchant_id: merchant.id,
      key_hash: hashApiKey(secret),
      prefix: key.prefix,
      created_at: now.toISOString(),
    }),
  );
  return { key, secret };
}

/** Revokes one key (a revoked one stays as it was); it stops working within API_KEY_CACHE_MS. */
export async function revokeOneApiKey(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  keyId: string,
): Promise<ApiKeyView> {
  await ctx.tx.write((trx) => revokeApiKey(trx, merchant.id, keyId, ctx.clock.now().toISOString()));
  const key = (await listApiKeys(ctx, merchant)).find((k) => k.id === keyId);
  if (!key) throw new PaymentFailure(PaymentErrorCode.NOT_FOUND, `API key ${keyId} not found`);
  return key;
}

export interface WebhookSettings {
  url: string;
  secret: string;
  failing: boolean;
  failingReason: string;
}

export async function getWebhookSettings(ctx: FlowContext, merchant: MerchantPrincipal): Promise<WebhookSettings> {
  const row = await findMerchant(ctx.tx.db, merchant.id);
  if (!row) throw new PaymentFailure(PaymentErrorCode.NOT_FOUND, `merchant ${merchant.id} not found`);
  return {
    url: row.webhook_url,
    secret: row.webhook_secret,
    failing: row.webhook_failing === 1,
    failingReason: row.webhook_failing_reason,
  };
}

/** Sets the webhook URL (through the same checks as the CLI) and, when asked, a new signing secret. */
export async function updateWebhookSettings(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  change: { url: string; rotateSecret: boolean },
): Promise<WebhookSettings> {
  await setWebhookUrl(ctx, merchant.id, change.url.trim());
  if (change.rotateSecret) await ctx.tx.write((trx) => setWebhookSecret(trx, merchant.id, newWebhookSecret()));
  return getWebhookSettings(ctx, merchant);
}

/** SandboxService's controls exist only in sandbox mode; in production they answer not_found. */
export function requireSandbox(ctx: FlowContext): void {
  if (ctx.config.mode !== "sandbox")
    throw new RequestRefusal("not_found", "sandbox controls are only available in sandbox mode");
}
