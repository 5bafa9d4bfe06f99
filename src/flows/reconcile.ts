import { moneyViolations, subscriptionViolations, type Violation } from "../domain/invariants.js";
import { moneySnapshot } from "../storage/reconcile-queries.js";
import type { FlowContext } from "./flow-context.js";

/** `furikomi reconcile`: every money invariant (docs/reference/invariants.md) over the whole database. */
export async function reconcile(ctx: FlowContext): Promise<Violation[]> {
  const snapshot = await moneySnapshot(ctx.tx);
  return [...moneyViolations(snapshot), ...subscriptionViolations(snapshot)];
}
