import { ChargeStatus, ContractStatus, EventType } from "../../gen/payments/v1/enums_pb.js";
import { transitionContract } from "../domain/contract.js";
import type { OnSessionChanges, OnSessionPayment } from "../domain/on-session-settlement.js";
import {
  outcomeOfLink,
  redirectUrlFor,
  type LinkOutcome,
  workflowCreatesContract,
  workflowNeedsBankLink,
  type LinkState,
  type PaymentLinkRecord,
} from "../domain/payment-link.js";
import { chargeEventContent, contractEventContent } from "../domain/webhook-content.js";
import { lockCharge, saveChargeAccount, saveChargeStatus } from "../storage/charges.js";
import {
  findActivatedContracts,
  findContractById,
  lockContract,
  saveContractAccount,
  saveContractStatus,
} from "../storage/contracts.js";
import { findCustomerById, lockCustomer, saveCustomer } from "../storage/customers.js";
import { findMerchant } from "../storage/merchants.js";
import { findPendingBankAccount, openBankAccount } from "../storage/bank-accounts.js";
import { defaultSandboxBalance } from "../ports/sandbox-bank.js";
import { findPaymentLinkById, lockPaymentLink, transitionPaymentLink } from "../storage/payment-links.js";
import { findCharge } from "../storage/status-queries.js";
import type { Tx } from "../storage/transactor.js";
import type { FlowContext } from "./flow-context.js";
import { recordEvent } from "../storage/events.js";
import { enqueueDebitNotice } from "./debit-notice.js";

/** The link and the records it drives, read (not locked) outside a transaction. */
export async function loadOnSessionPayment(ctx: FlowContext, link: PaymentLinkRecord): Promise<OnSessionPayment> {
  const [charge, contract, customer] = await Promise.all([
    link.chargeId ? findCharge(ctx.tx.db, link.merchantId, link.chargeId) : undefined,
    link.contractId ? findContractById(ctx.tx.db, link.contractId) : undefined,
    findCustomerById(ctx.tx.db, link.customerId),
  ]);
  if (!customer) throw new Error(`payment link ${link.id} has no customer`);
  return { link, charge, contract, customer };
}

/** The same, locked for update inside a write transaction (link, charge, contract, customer, in that order). */
async function lockOnSessionPayment(ctx: FlowContext, trx: Tx, linkId: string): Promise<OnSessionPayment> {
  const link = await lockPaymentLink(ctx.tx, trx, linkId);
  if (!link) throw new Error(`payment link ${linkId} not found`);
  const charge = link.chargeId ? await lockCharge(ctx.tx, trx, link.chargeId) : undefined;
  const contract = link.contractId ? await lockContract(ctx.tx, trx, link.contractId) : undefined;
  const customer = await lockCustomer(ctx.tx, trx, link.merchantId, link.customerId);
  if (!customer) throw new Error(`payment link ${link.id} has no customer`);
  return { link, charge, contract, customer };
}

/**
 * One transaction that moves a link out of one of `from` and writes what `decide` changes (charge,
 * contract, customer) with its outbox events. `decide` sees the locked, current records; when the
 * link is no longer in `from`, or `decide` returns undefined, nothing is written and it answers false.
 */
export async function changeOnSessionPayment(
  ctx: FlowContext,
  linkId: string,
  from: LinkState[],
  decide: (payment: OnSessionPayment, now: Date) => OnSessionChanges | undefined,
): Promise<boolean> {
  const changed = await ctx.tx.write(async (trx) => {
    const now = ctx.clock.now();
    const payment = await lockOnSessionPayment(ctx, trx, linkId);
    if (!from.includes(payment.link.state)) return false;
    const changes = decide(payment, now);
    if (!changes) return false;
    const moved = await transitionPaymentLink(trx, linkId, { from: [payment.link.state], to: changes.linkState, now });
    if (!moved) return false;
    await applyChanges(ctx, trx, payment, changes, now);
    return changes;
  });
  if (!changed) return false;
  ctx.wake("events");
  if (awaitsDebitDate(changed)) ctx.wake("jobs");
  const charge = changed.charge;
  if (charge && (charge.status === ChargeStatus.SUCCESS || charge.status === ChargeStatus.FAILURE))
    ctx.metrics?.chargeSettled(charge);
  return true;
}

async function applyChanges(
  ctx: FlowContext,
  trx: Tx,
  payment: OnSessionPayment,
  changes: OnSessionChanges,
  now: Date,
): Promise<void> {
  if (changes.charge) await saveChargeStatus(trx, changes.charge);
  if (changes.contract) await saveContractStatus(trx, changes.contract);
  if (changes.customer) await saveCustomer(trx, changes.customer);
  await applyApprovedAccount(trx, payment, changes, now);
  // Accepted for a debit date: the customer is e-mailed the date and the amount.
  if (awaitsDebitDate(changes)) await enqueueDebitNotice(trx, payment.link.id, now);
  if (changes.contract?.status === ContractStatus.ACTIVATED) {
    // One activated contract per customer: the newer one replaces the older (a re-linked account).
    for (const older of await findActivatedContracts(trx, changes.contract.customerId)) {
      if (older.id !== changes.contract.id)
        await saveContractStatus(trx, transitionContract(older, ContractStatus.DEACTIVATED, now));
    }
  }
  if (changes.events.length === 0) return;
  const merchantName = (await findMerchant(trx, payment.link.merchantId))?.name ?? "";
  for (const type of changes.events) {
    if (type === EventType.CONTRACT_ACTIVATED && changes.contract) {
      await recordEvent(trx, {
        merchantId: payment.link.merchantId,
        type,
        content: contractEventContent(changes.contract, merchantName),
        now,
      });
    } else if (changes.charge) {
      const body = type === EventType.TEST_CHARGE_CREATED && payment.charge ? payment.charge : changes.charge;
      await recordEvent(trx, {
        merchantId: payment.link.merchantId,
        type,
        chargeId: changes.charge.id,
        content: chargeEventContent(body, merchantName),
        now,
      });
    }
  }
}

/** A link completed with its charge still PENDING: a bank that debits on a date scheduled it. */
function awaitsDebitDate(changes: OnSessionChanges): boolean {
  return changes.linkState === "completed" && changes.charge?.status === ChargeStatus.PENDING;
}

/**
 * The account the payment goes ahead with, fixed as its approval is claimed (→ approving): the
 * account given on the link's bank step becomes one of the customer's accounts (the same account
 * approved before is found again) and the charge's and the link's own new contract's; a link
 * without a bank step (a charge on an active contract) pays from that contract's account. Nothing
 * else changes: the customer's other contracts keep the accounts they were approved with, and an
 * abandoned, expired or failed link opens no account.
 */
async function applyApprovedAccount(
  trx: Tx,
  payment: OnSessionPayment,
  changes: OnSessionChanges,
  now: Date,
): Promise<void> {
  if (changes.linkState !== "approving") return;
  const ownContract = workflowCreatesContract(payment.link.workflow) ? payment.contract : undefined;
  const accountId = workflowNeedsBankLink(payment.link.workflow)
    ? await openLinkedAccount(trx, payment, now)
    : (payment.contract?.bankAccountId ?? null);
  if (!accountId) return;
  if (payment.charge && payment.charge.bankAccountId !== accountId)
    await saveChargeAccount(trx, payment.charge.id, accountId);
  if (ownContract && ownContract.bankAccountId !== accountId) await saveContractAccount(trx, ownContract.id, accountId);
}

/** The account given on the link's bank step, as one of the customer's accounts (opened with the sandbox's balance). */
async function openLinkedAccount(trx: Tx, payment: OnSessionPayment, now: Date): Promise<string | null> {
  const details = await findPendingBankAccount(trx, payment.link.id);
  if (!details) return null;
  return openBankAccount(trx, {
    merchantId: payment.link.merchantId,
    customerId: payment.customer.id,
    details,
    balance: defaultSandboxBalance,
    now,
    adoptUnused: true,
  });
}

/** The link as it stands now, and its outcome and redirect. */
export async function currentOutcome(
  ctx: FlowContext,
  linkId: string,
): Promise<{ link: PaymentLinkRecord; outcome: LinkOutcome; redirectUrl: string }> {
  const link = await findPaymentLinkById(ctx.tx.db, linkId);
  if (!link) throw new Error(`payment link ${linkId} not found`);
  const charge = link.chargeId ? await findCharge(ctx.tx.db, link.merchantId, link.chargeId) : undefined;
  const outcome = outcomeOfLink(link.state, charge);
  return { link, outcome, redirectUrl: redirectUrlFor(link, outcome) };
}
