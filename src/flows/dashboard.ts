import { chargingRefusals } from "../domain/onboarding.js";
import { refuseBlockedMerchant } from "./charging-allowed.js";
import { PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { hashApiKey, newApiKey, newWebhookSecret } from "../domain/api-key.js";
import { newId } from "../domain/ids.js";
import { emailPrefixKey, kanaKey, nameKey } from "../domain/customer-search.js";
import { decodePageToken, encodePageToken, pageSize, type Cursor } from "../domain/page-token.js";
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
import {
  payersOf,
  searchChargesOfMerchant,
  searchCustomersOfMerchant,
  type ChargeSearch,
  type PayerRow,
} from "../storage/dashboard-search.js";
import { findMerchant, insertApiKey } from "../storage/merchants.js";
import { findCustomer } from "../storage/status-queries.js";
import { chargeTimelineFacts } from "../storage/charge-timeline.js";
import { chargeTimeline, type ChargeTimelineEntry } from "../domain/charge-timeline.js";
import { stopRequestsOfCustomer } from "../storage/stop-requests.js";
import type { StopRequestRecord } from "../domain/stop-request.js";
import type { FlowContext, MerchantPrincipal } from "./flow-context.js";
import { setWebhookUrl } from "./merchants.js";
import { getCharge, getCustomer } from "./status.js";
import { limits } from "../domain/limits.js";
import { requireLiveSession, type DashboardPrincipal } from "./dashboard-auth.js";

export type { ChargeSearch, PayerRow };

/** The dashboard's reads and settings beyond what PaymentService already offers (docs/guide/dashboard.md). */

export interface ChargeWithRefunds {
  charge: ChargeRecord;
  refunds: RefundRecord[];
}

/**
 * A customer's page: statuses, contracts, the most recent charges (triggered test errors included)
 * with their refunds, capped (docs/reference/limits.md#the-catalogue) and saying so, and the stop
 * requests the customer made in the customer app.
 */
export async function customerDetail(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  customerId: string,
): Promise<{
  customer: CustomerRecord;
  contracts: ContractRecord[];
  charges: ChargeWithRefunds[];
  chargesTruncated: boolean;
  stopRequests: StopRequestRecord[];
}> {
  const customer = await getCustomer(ctx, merchant, customerId);
  const [contracts, charges, stopRequests] = await Promise.all([
    contractsOfCustomer(ctx.tx.db, merchant.id, customer.id),
    listChargesOfMerchant(ctx.tx.db, merchant.id, {
      customerId: customer.id,
      limit: limits.customerDetailChargesMax + 1,
    }),
    stopRequestsOfCustomer(ctx.tx.db, merchant.id, customer.id),
  ]);
  // One more than shown tells whether there are more.
  const shown = charges.slice(0, limits.customerDetailChargesMax);
  const chargesTruncated = charges.length > shown.length;
  return { customer, contracts, charges: await withRefunds(ctx, shown), chargesTruncated, stopRequests };
}

/** The merchant's charges, newest first, filtered (docs/guide/dashboard.md#finding-things), with their payers. */
export async function listCharges(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  query: ChargeSearch & { pageSize: number; pageToken: string },
): Promise<{ charges: ChargeWithRefunds[]; payers: PayerRow[]; nextPageToken: string }> {
  const limit = pageSize(query.pageSize);
  const rows = await searchChargesOfMerchant(ctx.tx.db, merchant.id, {
    ...query,
    limit: limit + 1,
    after: decodePageToken(query.pageToken),
  });
  const page = rows.slice(0, limit);
  return {
    charges: await withRefunds(ctx, page),
    payers: await payersOfCharges(ctx, merchant, page),
    nextPageToken: rows.length > limit ? cursorAfter(page) : "",
  };
}

function cursorAfter(page: ReadonlyArray<{ createdAt: Date; id: string }>): string {
  const last = page[page.length - 1];
  return last ? encodePageToken({ createdAt: last.createdAt.toISOString(), id: last.id }) : "";
}

function payersOfCharges(ctx: FlowContext, merchant: MerchantPrincipal, charges: ChargeRecord[]): Promise<PayerRow[]> {
  return payersOf(
    ctx.tx.db,
    merchant.id,
    charges.flatMap((c) => (c.customerId ? [c.customerId] : [])),
  );
}

/**
 * Customers by the start of their e-mail and by part of their name or kana (either matches),
 * newest first, with their payers (docs/guide/dashboard.md#finding-things).
 */
export async function findCustomers(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  query: { email: string; name: string; pageSize: number; pageToken: string },
): Promise<{ customers: CustomerRecord[]; payers: PayerRow[]; nextPageToken: string }> {
  const limit = pageSize(query.pageSize);
  const name = query.name.trim();
  const rows = await searchCustomersOfMerchant(ctx.tx.db, merchant.id, {
    emailPrefix: emailPrefixKey(query.email) || undefined,
    name: name ? nameKey(name) : undefined,
    kana: name ? kanaKey(name) || undefined : undefined,
    limit: limit + 1,
    after: decodePageToken(query.pageToken),
  });
  const page = rows.slice(0, limit);
  const payers = await payersOf(
    ctx.tx.db,
    merchant.id,
    page.map((c) => c.id),
  );
  const byId = new Map(payers.map((p) => [p.customerId, p]));
  return {
    customers: page,
    payers: page.map((c) => byId.get(c.id)!).filter(Boolean),
    nextPageToken: rows.length > limit ? cursorAfter(page) : "",
  };
}

/** How many charges an export reads at a time. */
const exportPageSize = limits.chargeExportPageRows;

/**
 * Every charge the filter keeps, newest first, read in keyset pages so that an export of any size
 * holds one page in memory: each page with its payers.
 */
export async function* chargesForExport(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  search: ChargeSearch,
): AsyncGenerator<Array<{ charge: ChargeRecord; payer: PayerRow | undefined }>> {
  let after: Cursor | undefined;
  for (;;) {
    const page = await searchChargesOfMerchant(ctx.tx.db, merchant.id, { ...search, limit: exportPageSize, after });
    if (page.length === 0) return;
    const payers = new Map((await payersOfCharges(ctx, merchant, page)).map((p) => [p.customerId, p]));
    yield page.map((charge) => ({ charge, payer: charge.customerId ? payers.get(charge.customerId) : undefined }));
    if (page.length < exportPageSize) return;
    const last = page[page.length - 1];
    after = { createdAt: last.createdAt.toISOString(), id: last.id };
  }
}

/** A charge with its most recent refunds (as GetCharge carries them), and its customer when it has one. */
export async function chargeDetail(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  chargeId: string,
): Promise<
  ChargeWithRefunds & {
    refundsTruncated: boolean;
    customer: CustomerRecord | undefined;
    payer: PayerRow | undefined;
    timeline: ChargeTimelineEntry[];
  }
> {
  const { charge, refunds, refundsTruncated } = await getCharge(ctx, merchant, chargeId);
  const customer = charge.customerId ? await findCustomer(ctx.tx.db, merchant.id, charge.customerId) : undefined;
  const [payer] = await payersOfCharges(ctx, merchant, [charge]);
  const timeline = chargeTimeline(charge, refunds, await chargeTimelineFacts(ctx.tx.db, charge));
  return { charge, refunds, refundsTruncated, customer, payer, timeline };
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
  return apiKeysOfMerchant(ctx.tx.db, merchant.id);
}

/**
 * One more API key beside the existing ones (so a merchant can roll keys without downtime:
 * create, deploy, revoke the old one). Shown once, stored hashed, with the user and session that
 * made it; that session must still count when the key is written (a user removed a moment before
 * makes none: docs/reference/security.md#access-that-ends).
 */
export async function createApiKey(
  ctx: FlowContext,
  principal: DashboardPrincipal,
): Promise<{ key: ApiKeyView; secret: string }> {
  // A live key only once the operator approved the going-live checklist (docs/guide/getting-started.md#going-live).
  await refuseBlockedMerchant(ctx, principal.merchant.id, chargingRefusals.precondition);
  const now = ctx.clock.now();
  const secret = newApiKey(ctx.mode.apiKeyPrefix);
  const key = { id: newId("key"), prefix: secret.slice(0, 12), createdAt: now, revokedAt: null };
  await ctx.tx.write(async (trx) => {
    await requireLiveSession(ctx, trx, principal);
    await insertApiKey(trx, {
      id: key.id,
      merchantId: principal.merchant.id,
      keyHash: hashApiKey(secret),
      prefix: key.prefix,
      createdAt: now,
      createdBy: { userId: principal.userId, sessionHash: principal.sessionHash },
    });
    await ctx.audit?.(trx, { action: "api_key.create", target: key.id, details: { prefix: key.prefix } });
  });
  return { key, secret };
}

/** Revokes one key (a revoked one stays as it was); it stops working within API_KEY_CACHE_MS. */
export async function revokeOneApiKey(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  keyId: string,
): Promise<ApiKeyView> {
  await ctx.tx.write(async (trx) => {
    await revokeApiKey(trx, merchant.id, keyId, ctx.clock.now().toISOString());
    await ctx.audit?.(trx, { action: "api_key.revoke", target: keyId });
  });
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
    url: row.webhookUrl,
    secret: row.webhookSecret,
    failing: row.webhookFailing,
    failingReason: row.webhookFailingReason,
  };
}

/** Sets the webhook URL (through the same checks as the CLI) and, when asked, a new signing secret. */
export async function updateWebhookSettings(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  change: { url: string; rotateSecret: boolean },
): Promise<WebhookSettings> {
  await setWebhookUrl(ctx, merchant.id, change.url.trim());
  if (change.rotateSecret)
    await ctx.tx.write(async (trx) => {
      await setWebhookSecret(trx, merchant.id, newWebhookSecret());
      await ctx.audit?.(trx, { action: "webhook.update", target: merchant.id, details: { rotated_secret: true } });
    });
  return getWebhookSettings(ctx, merchant);
}

/** SandboxService's controls exist only in sandbox mode; in production they answer not_found. */
export function requireSandbox(ctx: FlowContext): void {
  if (!ctx.mode.sandboxTools)
    throw new RequestRefusal("not_found", "sandbox controls are only available in sandbox mode");
}
