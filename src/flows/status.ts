import { PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { normalizeEmail } from "../domain/customer.js";
import { decodePageToken, encodePageToken, pageSize } from "../domain/page-token.js";
import { PaymentFailure } from "../domain/payment-failure.js";
import type { ChargeRecord, ContractRecord, CustomerRecord, RefundRecord } from "../domain/records.js";
import { newestRefundsOfCharge } from "../storage/charge-reads.js";
import { findCharge, findContract, findCustomer, listCustomers, refundsOfCharge } from "../storage/status-queries.js";
import { findItem } from "../storage/zengin.js";
import type { FlowContext, MerchantPrincipal } from "./flow-context.js";
import { limits } from "../domain/limits.js";

const notFound = (what: string, id: string) =>
  new PaymentFailure(PaymentErrorCode.NOT_FOUND, `${what} ${id} not found`);

/** How many refunds GetCharge carries at most: the most recent; ListRefunds pages through them all. */
export const chargeRefundsShown = limits.chargeRefundsShownMax;

/**
 * A charge is found by its `trx-…` id; the on-session payment's `chg-…` id (docs/reference/contract.md#identifiers)
 * is the usual mistake, so a missing id of another prefix says which one to use (same code, same status).
 */
const chargeNotFound = (id: string) =>
  id.startsWith("trx-") ? notFound("charge", id) : notFound("charge", `${id} (a charge's id is its trx-… id)`);

export async function getCharge(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  id: string,
): Promise<{ charge: ChargeRecord; refunds: RefundRecord[]; refundsTruncated: boolean; debitDate?: string }> {
  const charge = await findCharge(ctx.tx.db, merchant.id, id);
  if (!charge) throw chargeNotFound(id);
  const newest = await newestRefundsOfCharge(ctx.tx.db, charge.id, chargeRefundsShown + 1);
  return {
    charge,
    refunds: newest.slice(0, chargeRefundsShown).reverse(),
    refundsTruncated: newest.length > chargeRefundsShown,
    debitDate: await chargeDebitDate(ctx, charge.id),
  };
}

/**
 * The charge's debit date (振替日, YYYY-MM-DD JST) under the Zengin connector: the date of its
 * scheduled debit, decided when it was accepted (docs/guide/direct-debit-files.md#the-life-of-a-charge).
 * Undefined under a bank that books at once (the simulated connector: no `debitDateFor`), and for a
 * charge with no debit scheduled.
 */
export async function chargeDebitDate(ctx: FlowContext, chargeId: string): Promise<string | undefined> {
  if (!ctx.bank.debitDateFor) return undefined;
  const item = await findItem(ctx.tx.db, "zengin_debits", chargeId);
  return item && item.state !== "cancelled" ? (item.date ?? undefined) : undefined;
}

/** A page of the merchant's charge's refunds, oldest first. */
export async function listRefunds(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  query: { chargeId: string; pageSize: number; pageToken: string },
): Promise<{ refunds: RefundRecord[]; nextPageToken: string }> {
  const after = decodePageToken(query.pageToken);
  const charge = await findCharge(ctx.tx.db, merchant.id, query.chargeId);
  if (!charge) throw chargeNotFound(query.chargeId);
  const limit = pageSize(query.pageSize);
  const rows = await refundsOfCharge(ctx.tx.db, charge.id, { limit: limit + 1, afterId: after?.id });
  return nextPage(rows, limit, (refunds) => ({ refunds }));
}

export async function getContract(ctx: FlowContext, merchant: MerchantPrincipal, id: string): Promise<ContractRecord> {
  const contract = await findContract(ctx.tx.db, merchant.id, id);
  if (!contract) throw notFound("contract", id);
  return contract;
}

export async function getCustomer(ctx: FlowContext, merchant: MerchantPrincipal, id: string): Promise<CustomerRecord> {
  const customer = await findCustomer(ctx.tx.db, merchant.id, id);
  if (!customer) throw notFound("customer", id);
  return customer;
}

export async function searchCustomers(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  query: { email: string; pageSize: number; pageToken: string },
): Promise<{ customers: CustomerRecord[]; nextPageToken: string }> {
  const limit = pageSize(query.pageSize);
  const after = decodePageToken(query.pageToken);
  const rows = await listCustomers(ctx.tx.db, merchant.id, {
    emailNormalized: query.email ? normalizeEmail(query.email) : undefined,
    limit: limit + 1,
    after,
  });
  return nextPage(rows, limit, (customers) => ({ customers }));
}

/** The first `limit` of `rows` (fetched one over the page size) and the token of the page after, if any. */
function nextPage<T extends { createdAt: Date; id: string }, P>(
  rows: T[],
  limit: number,
  wrap: (page: T[]) => P,
): P & { nextPageToken: string } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const nextPageToken =
    rows.length > limit && last ? encodePageToken({ createdAt: last.createdAt.toISOString(), id: last.id }) : "";
  return { ...wrap(page), nextPageToken };
}
