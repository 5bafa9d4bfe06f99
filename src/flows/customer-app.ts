import { ContractStatus, EventType } from "../../gen/payments/v1/enums_pb.js";
import { hasReceipt } from "../domain/charge.js";
import { jstMonthRange } from "../domain/jst.js";
import { newId } from "../domain/ids.js";
import { decodePageToken, encodePageToken, pageSize } from "../domain/page-token.js";
import type { ChargeRecord, ContractRecord, RefundRecord } from "../domain/records.js";
import { receiptAddressee, receiptIssuer, receiptRefunds, type ReceiptIssuer } from "../domain/receipt.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import type { StopRequestRecord } from "../domain/stop-request.js";
import { stopRequestedContent } from "../domain/webhook-content.js";
import {
  chargesOfCustomers,
  contractsOfCustomers,
  customersOfEmail,
  customersWithCharges,
  findChargeOfCustomers,
  findContractOfCustomers,
  debitDatesOfCharges,
  merchantContacts,
  upcomingDebitsOfCustomers,
  type MerchantContact,
  type UpcomingDebitRecord,
} from "../storage/customer-records.js";
import { limits } from "../domain/limits.js";
import { refundsOfCharges } from "../storage/dashboard-queries.js";
import { findBankAccountById } from "../storage/bank-accounts.js";
import { lockContract } from "../storage/contracts.js";
import { findCustomerById } from "../storage/customers.js";
import { findSavedChecklist } from "../storage/onboarding-checklists.js";
import { recordEvent } from "../storage/events.js";
import { mandatesOfContracts, type MandateRecord } from "../storage/mandates.js";
import { findStopRequestOfContract, insertStopRequest, stopRequestsOfContracts } from "../storage/stop-requests.js";
import type { CustomerPrincipal } from "./customer-app-sign-in.js";
import type { FlowContext } from "./flow-context.js";

/**
 * What a signed-in customer sees (docs/guide/customer-app.md): only the records of the customers
 * their proven e-mail names, at every merchant. An id of anyone else's record answers exactly as an
 * id that does not exist.
 */

export interface CustomerContractView {
  contract: ContractRecord;
  mandate: MandateRecord | undefined;
  stopRequest: StopRequestRecord | undefined;
}

export interface CustomerMerchantView {
  merchant: MerchantContact;
  contracts: CustomerContractView[];
}

export async function customerMerchants(ctx: FlowContext, who: CustomerPrincipal): Promise<CustomerMerchantView[]> {
  const customers = await customersOfEmail(ctx.tx.db, who.email);
  const [merchants, contracts] = await Promise.all([
    merchantContacts(
      ctx.tx.db,
      customers.map((c) => c.merchantId),
    ),
    contractsOfCustomers(
      ctx.tx.db,
      customers.map((c) => c.id),
    ),
  ]);
  const contractIds = contracts.map((c) => c.id);
  const [mandates, stopRequests, charged] = await Promise.all([
    mandatesOfContracts(ctx.tx.db, contractIds),
    stopRequestsOfContracts(ctx.tx.db, contractIds),
    customersWithCharges(
      ctx.tx.db,
      customers.map((c) => c.id),
    ),
  ]);
  return customers.flatMap(({ id, merchantId }) => {
    const merchant = merchants.get(merchantId);
    // A shop the customer never approved anything with (a link they never opened) is not theirs to see.
    if (!merchant || !(charged.has(id) || contracts.some((c) => c.customerId === id))) return [];
    const own = contracts.filter((c) => c.merchantId === merchantId);
    return [
      {
        merchant,
        contracts: own.map((contract) => ({
          contract,
          mandate: mandates.get(contract.id),
          stopRequest: stopRequests.get(contract.id),
        })),
      },
    ];
  });
}

export interface CustomerTransactionView {
  charge: ChargeRecord;
  merchantName: string;
  refunds: RefundRecord[];
  /** Its 振替日 under the Zengin connector, once its debit was scheduled. */
  debitDate: string | undefined;
}

/** The customer's charges with their refunds, newest first, a page at a time; by merchant and JST month. */
export async function customerTransactions(
  ctx: FlowContext,
  who: CustomerPrincipal,
  query: { merchantId: string; month: string; pageSize: number; pageToken: string },
): Promise<{ transactions: CustomerTransactionView[]; nextPageToken: string }> {
  const limit = pageSize(query.pageSize);
  const after = decodePageToken(query.pageToken);
  const customers = (await customersOfEmail(ctx.tx.db, who.email)).filter(
    (c) => !query.merchantId || c.merchantId === query.merchantId,
  );
  const range = query.month ? jstMonthRange(query.month) : undefined;
  const rows = await chargesOfCustomers(
    ctx.tx.db,
    customers.map((c) => c.id),
    { limit: limit + 1, after, from: range?.from, to: range?.to },
  );
  const page = rows.slice(0, limit);
  const [refunds, merchants, debitDates] = await Promise.all([
    refundsOfCharges(
      ctx.tx.db,
      page.map((c) => c.id),
    ),
    merchantContacts(ctx.tx.db, [...new Set(page.map((c) => c.merchantId))]),
    debitDatesOfCharges(
      ctx.tx.db,
      page.map((c) => c.id),
    ),
  ]);
  const last = page[page.length - 1];
  return {
    transactions: page.map((charge) => ({
      charge,
      merchantName: merchants.get(charge.merchantId)?.name ?? "",
      refunds: refunds.get(charge.id) ?? [],
      debitDate: debitDates.get(charge.id),
    })),
    nextPageToken:
      rows.length > limit && last ? encodePageToken({ createdAt: last.createdAt.toISOString(), id: last.id }) : "",
  };
}

/**
 * The customer's charges accepted and not yet debited, each with its debit date (振替日) and
 * merchant, soonest first (docs/guide/customer-app.md#upcoming-debits).
 */
export async function customerUpcomingDebits(
  ctx: FlowContext,
  who: CustomerPrincipal,
): Promise<Array<UpcomingDebitRecord & { merchantName: string }>> {
  const upcoming = await upcomingDebitsOfCustomers(
    ctx.tx.db,
    await ownCustomerIds(ctx, who),
    limits.customerUpcomingDebitsMax,
  );
  const merchants = await merchantContacts(ctx.tx.db, [...new Set(upcoming.map((u) => u.charge.merchantId))]);
  return upcoming.map((debit) => ({ ...debit, merchantName: merchants.get(debit.charge.merchantId)?.name ?? "" }));
}

/** The ids of the customer records the signed-in e-mail names: the reads below are scoped to them. */
async function ownCustomerIds(ctx: FlowContext, who: CustomerPrincipal): Promise<string[]> {
  return (await customersOfEmail(ctx.tx.db, who.email)).map((c) => c.id);
}

const noSuchCharge = () => new RequestRefusal("not_found", "no such charge");
const noSuchContract = () => new RequestRefusal("not_found", "no such contract");

/** A receipt as the customer app prints it (docs/guide/customer-app.md#the-receipt). */
export interface CustomerReceipt {
  charge: ChargeRecord;
  merchant: MerchantContact;
  /** Who it is made out to (never the e-mail address). */
  addressee: string;
  issuer: ReceiptIssuer;
  refundedAmount: number;
  refundPendingAmount: number;
  issuedAt: Date;
}

/** The receipt (領収書, or 適格請求書 when the merchant has an インボイス 登録番号) of one of the customer's successful charges. */
export async function customerReceipt(
  ctx: FlowContext,
  who: CustomerPrincipal,
  chargeId: string,
): Promise<CustomerReceipt> {
  const charge = await findChargeOfCustomers(ctx.tx.db, chargeId, await ownCustomerIds(ctx, who));
  if (!charge) throw noSuchCharge();
  if (!hasReceipt(charge.status))
    throw new RequestRefusal("precondition", "only a successful charge has a receipt; this one was not debited", {
      reason: "RECEIPT_NOT_AVAILABLE",
    });
  const [merchants, checklist, customer, account, refunds] = await Promise.all([
    merchantContacts(ctx.tx.db, [charge.merchantId]),
    findSavedChecklist(ctx.tx.db, charge.merchantId),
    charge.customerId ? findCustomerById(ctx.tx.db, charge.customerId) : undefined,
    charge.bankAccountId ? findBankAccountById(ctx.tx.db, charge.bankAccountId) : undefined,
    refundsOfCharges(ctx.tx.db, [charge.id]),
  ]);
  const merchant = merchants.get(charge.merchantId);
  if (!merchant) throw noSuchCharge();
  const addressee = receiptAddressee({
    name: customer?.name ?? "",
    katakanaLastName: customer?.katakanaLastName ?? "",
    katakanaFirstName: customer?.katakanaFirstName ?? "",
    accountHolder: account?.details.accountHolder ?? "",
  });
  return {
    charge,
    merchant,
    addressee,
    issuer: receiptIssuer(merchant.name, checklist.business),
    ...receiptRefunds(refunds.get(charge.id) ?? []),
    issuedAt: ctx.clock.now(),
  };
}

/** Contracts that no longer debit: a stop request for them would ask nothing. */
const endedContract = new Set([ContractStatus.EXPIRED, ContractStatus.DEACTIVATED, ContractStatus.CANCELLED]);

/**
 * Records the customer's request that the merchant stop debiting under a contract, and tells the
 * merchant (EVENT_TYPE_CONTRACT_STOP_REQUESTED, in the same transaction). The contract does not
 * change. Asking again answers the first request.
 */
export async function requestStop(
  ctx: FlowContext,
  who: CustomerPrincipal,
  contractId: string,
  reason: string,
): Promise<{ stopRequest: StopRequestRecord; created: boolean }> {
  const contract = await findContractOfCustomers(ctx.tx.db, contractId, await ownCustomerIds(ctx, who));
  if (!contract) throw noSuchContract();
  const merchant = (await merchantContacts(ctx.tx.db, [contract.merchantId])).get(contract.merchantId);
  const outcome = await ctx.tx.write(async (trx) => {
    // The contract's row lock orders two first requests made at once: the second finds the first.
    const current = (await lockContract(ctx.tx, trx, contract.id)) ?? contract;
    const existing = await findStopRequestOfContract(trx, contract.id);
    if (existing) return { stopRequest: existing, created: false };
    if (endedContract.has(current.status))
      throw new RequestRefusal("precondition", "this contract no longer debits your account", {
        reason: "CONTRACT_ENDED",
      });
    const now = ctx.clock.now();
    const stopRequest: StopRequestRecord = {
      id: newId("stp"),
      merchantId: contract.merchantId,
      customerId: contract.customerId,
      contractId: contract.id,
      reason: reason.trim(),
      requestedAt: now,
    };
    await insertStopRequest(trx, stopRequest);
    await recordEvent(trx, {
      merchantId: contract.merchantId,
      type: EventType.CONTRACT_STOP_REQUESTED,
      content: stopRequestedContent(stopRequest, current, merchant?.name ?? ""),
      now,
    });
    return { stopRequest, created: true };
  });
  if (outcome.created) ctx.wake("events");
  return outcome;
}
