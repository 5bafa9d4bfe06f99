import { EventType } from "../../gen/payments/v1/enums_pb.js";
import { endSubscription } from "../domain/subscription.js";
import { findMerchant } from "../storage/merchants.js";
import { lockLiveSubscriptionsOfContract, saveSubscription } from "../storage/subscriptions.js";
import type { Tx } from "../storage/transactor.js";
import type { FlowContext } from "./flow-context.js";
import { recordSubscriptionEvent } from "./subscriptions.js";

/**
 * A contract DEACTIVATED by the bank (Zengin result 3 or 4, docs/guide/direct-debit-files.md#the-life-of-a-charge)
 * ends its subscriptions, CANCELLED with SUBSCRIPTION_END_REASON_CONTRACT_DEACTIVATED, in the
 * transaction that deactivates it (docs/guide/recurring-billing.md#when-a-contract-ends).
 */
export async function endSubscriptionsOfContract(
  ctx: FlowContext,
  trx: Tx,
  contractId: string,
  now: Date,
): Promise<void> {
  const live = await lockLiveSubscriptionsOfContract(ctx.tx, trx, contractId);
  if (live.length === 0) return;
  const merchantName = (await findMerchant(trx, live[0].merchantId))?.name ?? "";
  for (const subscription of live) {
    const ended = endSubscription(subscription, "cancelled", "contract_deactivated", now);
    await saveSubscription(trx, ended);
    await recordSubscriptionEvent(trx, EventType.SUBSCRIPTION_CANCELLED, ended, merchantName, now);
  }
}
