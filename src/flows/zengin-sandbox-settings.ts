import { saveSimulatedResultMinutes } from "../storage/zengin.js";
import type { FlowContext } from "./flow-context.js";

/** SandboxService.ConfigureZenginBank: when the simulated bank answers the merchant's files. */
export async function configureSimulatedZenginBank(ctx: FlowContext, merchantId: string, minutes: number) {
  await ctx.tx.write((trx) => saveSimulatedResultMinutes(trx, merchantId, minutes));
  return minutes;
}
