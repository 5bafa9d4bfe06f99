import { PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { normalizeEmail } from "../domain/customer.js";
import { decodePageToken, encodePageToken, pageSize } from "../domain/page-token.js";
import { PaymentFailure } from "../domain/payment-failure.js";
import type { ChargeRecord, ContractRecord, CustomerRecord, RefundRecord } from "../domain/records.js";
import {
  findCharge,
  findContract,
  findCustomer,
  findRefundsOfCharge,
  listCustomers,
} from "../storage/status-queries.js";
import type { FlowContext, MerchantPrincipal } from "./flow-context.js";

const notFound = (what: string, id: string) =>
  new PaymentFailure(PaymentErrorCode.NOT_FOUND, `${what} ${id} not found`);

export async function getCharge(
  ctx: FlowContext,
  merchant: MerchantPrincipal,
  id: string,
): Promise<{ charge: ChargeRecord; refunds: RefundRecord[] }> {
  const charge = await findCharge(ctx.tx.db, merchant.id, id);
  if (!charge) throw notFound("charge", id);
  return { charge, refunds: await findRefundsOfCharge(ctx.tx.db, charge.id) };
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
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    customers: page,
    nextPageToken:
      rows.length > limit && last ? encodePageToken({ createdAt: last.createdAt.toISOString(), id: last.id }) : "",
  };
}
