import { isExchangeFileName } from "../ports/zengin-transport.js";
import type { FlowContext } from "./flow-context.js";
import type { ZenginExchange } from "./zengin-exchange.js";
import { writeDueFiles } from "./zengin-request-files.js";
import { importResultFile } from "./zengin-result-import.js";
import { chargeDueSubscriptions } from "./subscription-cycle.js";
import { limits } from "../domain/limits.js";

export interface ZenginCycleReport {
  written: string[];
  imported: string[];
  quarantined: { name: string; reason: string }[];
  /** Files found in incoming/ with a name the exchange does not expect (imported or quarantined as any other). */
  unexpected: string[];
}

/**
 * One turn of the file exchange (`zengin run`, and the "zengin-cycle" job every minute): charge
 * the subscriptions whose debit date's cutoff has passed, write the files whose cutoff has passed, let the simulated bank answer, and import what came back
 * (docs/operations/zengin.md#the-cycle).
 */
export async function runZenginCycle(ctx: FlowContext, exchange: ZenginExchange): Promise<ZenginCycleReport> {
  // Subscriptions' charges first: a debit date's request file is written with its periods in it.
  await chargeDueSubscriptions(ctx);
  const written = await writeDueFiles(ctx, exchange);
  await exchange.simulatedBank?.(ctx.clock.now());
  const report: ZenginCycleReport = { written, imported: [], quarantined: [], unexpected: [] };
  for (const name of await exchange.transport.received()) {
    // Reported, never skipped: imported all the same when its content is a valid result.
    const unexpectedName = !isExchangeFileName(name);
    if (unexpectedName) {
      exchange.onUnexpectedName?.({ name });
      report.unexpected.push(name);
    }
    const outcome = await importResultFile(ctx, exchange, name, await exchange.transport.read(name), unexpectedName);
    if (outcome.ok) report.imported.push(name);
    else report.quarantined.push({ name, reason: outcome.reason });
    await exchange.transport.remove(name);
  }
  return report;
}

/** How often the cycle looks for due files and results when nothing else asks. */
const cycleIntervalMs = limits.zenginCycleIntervalMs;

/** The "zengin-cycle" job: one turn, then again in a minute. */
export async function runZenginCycleJob(ctx: FlowContext, exchange: ZenginExchange): Promise<{ retryAt: Date }> {
  await runZenginCycle(ctx, exchange);
  return { retryAt: new Date(ctx.clock.now().getTime() + cycleIntervalMs) };
}
