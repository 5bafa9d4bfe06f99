import { answerRequestFiles } from "../ports/zengin-simulated-bank.js";
import { createZenginTransport, type ZenginTransport } from "../ports/zengin-transport.js";
import type { FlowContext } from "./flow-context.js";

/** What the cycle works with: the transport, ZENGIN_DIR for the kept copies, and who hears of a quarantine. */
export interface ZenginExchange {
  readonly transport: ZenginTransport;
  readonly dir: string;
  onQuarantine(file: { name: string; reason: string }): void;
  /** A 総合振込 answer says refunds were paid that are recorded as failed (the amount went out twice?). */
  onPaidAfterFailure?(file: { name: string; refunds: string[] }): void;
  /** A file in incoming/ whose name the exchange does not expect (docs/operations/zengin.md#unexpected-file-names). */
  onUnexpectedName?(file: { name: string }): void;
  /** The simulated bank (ZENGIN_SIMULATED_BANK=on): answers request files whose time has come. */
  readonly simulatedBank?: (now: Date) => Promise<unknown>;
}

/** The exchange of a configuration: its transport, and the simulated bank when it is on. */
export function zenginExchangeOf(
  ctx: FlowContext,
  onQuarantine: ZenginExchange["onQuarantine"],
  notices: Pick<ZenginExchange, "onPaidAfterFailure" | "onUnexpectedName"> = {},
): ZenginExchange {
  const { zengin } = ctx.config;
  return {
    transport: createZenginTransport(zengin),
    dir: zengin.dir,
    onQuarantine,
    ...notices,
    simulatedBank: zengin.simulatedBank ? (now) => answerRequestFiles(ctx.tx, zengin.dir, now) : undefined,
  };
}
