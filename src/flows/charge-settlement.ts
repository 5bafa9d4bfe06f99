import { ContractStatus } from "../../gen/payments/v1/enums_pb.js";
import type { AsyncRequestRecord } from "../domain/async-request.js";
import { type ChargeSettlement, decideSettlement, type SettlementDecision } from "../domain/charge-settlement.js";
import { transitionContract } from "../domain/contract.js";
import type { ChargeRecord } from "../domain/records.js";
import { saveAsyncRequestStatuses } from "../storage/async-requests.js";
import { saveChargeStatuses } from "../storage/charges.js";
import { lockContract, saveContractStatus } from "../storage/contracts.js";
import { recordEvents } from "../storage/events.js";
import { findMerchant } from "../storage/merchants.js";
import type { Tx } from "../storage/transactor.js";
import type { FlowContext } from "./flow-context.js";
import { followSubscriptionCharges } from "./subscription-dunning.js";
import { endSubscriptionsOfContract } from "./subscription-endings.js";

/** A bank's answer on a charge the caller loaded and locked in `trx`, with the charge's request. */
export interface ChargeAnswer {
  readonly charge: ChargeRecord;
  readonly request: AsyncRequestRecord | undefined;
  readonly settlement: ChargeSettlement;
}

/**
 * The one place a bank's answers settle charges, for every connector (the simulated bank's one
 * charge, a Zengin result file's thousands): each answer decided by the domain
 * (domain/charge-settlement.ts), then saved in the caller's transaction in a few statements —
 * charges, requests, events, contracts deactivated, late bookings reversed
 * (docs/architecture.md#settling-a-charge). The caller wakes the event workers after the commit.
 */
export async function settleCharges(
  ctx: FlowContext,
  trx: Tx,
  answers: readonly ChargeAnswer[],
  now: Date,
): Promise<SettlementDecision[]> {
  const merchantNames = await merchantNamesOf(trx, answers);
  const decisions = answers.map((answer) =>
    decideSettlement({ ...answer, merchantName: merchantNames.get(answer.charge.merchantId) ?? "" }, now),
  );
  const settled = decisions.filter((decision) => decision.settled);
  await saveChargeStatuses(
    trx,
    settled.map((decision) => decision.charge),
  );
  await saveAsyncRequestStatuses(
    trx,
    settled.flatMap((decision) => (decision.request ? [decision.request] : [])),
  );
  await recordEvents(
    trx,
    settled.flatMap((decision) => (decision.event ? [{ ...decision.event, now }] : [])),
  );
  for (const decision of decisions) {
    if (decision.deactivateContractId) await deactivateContract(ctx, trx, decision.deactivateContractId, now);
    if (decision.reverseBooking) await ctx.bank.reverseBooking(trx, { reference: decision.charge.id, at: now });
  }
  await followSubscriptionCharges(ctx, trx, decisions, now);
  return decisions;
}

/** Each merchant's name once (a Zengin file's charges share one merchant). */
async function merchantNamesOf(trx: Tx, answers: readonly ChargeAnswer[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const merchantId of new Set(answers.map((answer) => answer.charge.merchantId)))
    names.set(merchantId, (await findMerchant(trx, merchantId))?.name ?? "");
  return names;
}

/** The bank stopped the debits: the contract ends, if it is still ACTIVATED, and its subscriptions with it. */
async function deactivateContract(ctx: FlowContext, trx: Tx, contractId: string, now: Date): Promise<void> {
  const contract = await lockContract(ctx.tx, trx, contractId);
  if (contract?.status !== ContractStatus.ACTIVATED) return;
  await saveContractStatus(trx, transitionContract(contract, ContractStatus.DEACTIVATED, now));
  await endSubscriptionsOfContract(ctx, trx, contractId, now);
}
