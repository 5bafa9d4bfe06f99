import { parseArgs } from "node:util";
import type { FlowContext } from "../flows/flow-context.js";
import {
  approveMerchant,
  reinstateMerchant,
  reviewOf,
  reviewQueue,
  sendBackMerchant,
  suspendMerchant,
} from "../flows/merchant-review.js";

const usage =
  "merchants review [list] | show --id M | approve --id M | send-back --id M --reason R | suspend --id M --reason R | reinstate --id M";

/**
 * `merchants review …` (docs/operations/merchant-review.md): the operator's review of going-live
 * checklists; each decision is audited in the merchant's log.
 */
export async function merchantsReviewCommand(
  args: string[],
  withContext: <T>(run: (ctx: FlowContext) => Promise<T>) => Promise<T>,
  usageError: (message: string) => Error,
): Promise<unknown> {
  const [verb = "list", ...rest] = args;
  if (verb === "list") return withContext((ctx) => reviewQueue(ctx));
  const { values } = parseArgs({ args: rest, options: { id: { type: "string" }, reason: { type: "string" } } });
  const id = values.id;
  if (!id) throw usageError(`--id is required (${usage})`);
  const reason = values.reason ?? "";
  const decisions: Record<string, (ctx: FlowContext) => Promise<unknown>> = {
    show: (ctx) => reviewOf(ctx, id),
    approve: (ctx) => approveMerchant(ctx, id),
    "send-back": (ctx) => sendBackMerchant(ctx, id, reason),
    suspend: (ctx) => suspendMerchant(ctx, id, reason),
    reinstate: (ctx) => reinstateMerchant(ctx, id),
  };
  const decision = decisions[verb];
  if (!decision) throw usageError(usage);
  return withContext(decision);
}
