import type { MerchantRecord } from "../domain/merchant.js";
import { chargingBlock } from "../domain/onboarding.js";
import { findMerchant } from "../storage/merchants.js";
import type { FlowContext } from "./flow-context.js";

/**
 * Refuses, with `refusal`'s error, a merchant that may not charge now (src/domain/onboarding.ts:
 * suspended, or not yet approved where real money moves) before anything is written. Read fresh
 * rather than from the API-key cache, so an approval or a suspension counts from the next request.
 */
export async function refuseBlockedMerchant(
  ctx: FlowContext,
  merchantId: string,
  refusal: (why: string) => Error,
): Promise<void> {
  const merchant = await findMerchant(ctx.tx.db, merchantId);
  const blocked = merchant && chargingBlock(merchant.onboardingState, ctx.mode.liveMoney);
  if (blocked) throw refusal(blocked);
}

/** Whether the merchant may charge now (the same rule, for work that passes over it instead of refusing). */
export function mayCharge(ctx: FlowContext, merchant: MerchantRecord | undefined): merchant is MerchantRecord {
  return merchant !== undefined && chargingBlock(merchant.onboardingState, ctx.mode.liveMoney) === undefined;
}
