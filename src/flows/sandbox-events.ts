import type { EventType } from "../../gen/payments/v1/enums_pb.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import { sampleEventContent } from "../domain/sample-events.js";
import { ManualClock } from "../ports/clock.js";
import { findMerchant } from "../storage/merchants.js";
import type { FlowContext, MerchantPrincipal } from "./flow-context.js";
import { recordEvent } from "../storage/events.js";
import { secondsMs } from "../domain/duration.js";

/**
 * SandboxService.SendTestEvent: an event of the given type, with made-up content of that type's
 * shape, into the outbox — signed, delivered and retried like any other event.
 */
export async function sendTestEvent(ctx: FlowContext, merchant: MerchantPrincipal, type: EventType): Promise<string> {
  const row = await findMerchant(ctx.tx.db, merchant.id);
  if (!row?.webhookUrl)
    throw new RequestRefusal(
      "precondition",
      "the merchant has no webhook URL; set one first (furikomi merchants set-webhook, or the dashboard)",
    );
  const now = ctx.clock.now();
  const id = await ctx.tx.write((trx) =>
    recordEvent(trx, {
      merchantId: merchant.id,
      type,
      content: sampleEventContent(type, merchant.id, merchant.name, now),
      now,
    }),
  );
  ctx.wake("events");
  return id;
}

/**
 * SandboxService.AdvanceClock: moves the server's clock forward (only with SANDBOX_CLOCK=manual;
 * the clock is the deployment's, not one merchant's), then rings the workers so what fell due runs.
 */
export function advanceClock(ctx: FlowContext, seconds: number): Date {
  if (ctx.config.sandboxClock !== "manual" || !(ctx.clock instanceof ManualClock)) {
    throw new RequestRefusal(
      "precondition",
      "the clock can only be moved on a server started with SANDBOX_CLOCK=manual",
    );
  }
  const now = ctx.clock.advance(secondsMs(seconds));
  ctx.wake("jobs");
  ctx.wake("events");
  return now;
}
