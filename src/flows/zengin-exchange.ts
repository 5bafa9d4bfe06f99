import { answerRequestFiles } from "../ports/zengin-simulated-bank.js";
import { createZenginTransport, type ZenginTransport } from "../ports/zengin-transport.js";
import type { FlowContext } from "./flow-context.js";

/** What the cycle works with: the transport, ZENGIN_DIR for the kept copies, and who hears of a quarantine. */
export interface ZenginExchange {
  readonly transport: ZenginTransport;
  readonly dir: string;
  onQuarantine(file: { name: string; reason: string }): void;
  /** The simulated bank (ZENGIN_SIMULATED_BANK=on): answers request files whose time has come. */
  readonly simulatedBank?: (now: Date) => Promise<unknown>;
}

/** The exchange of a configuration: its transport, and the simulated bank when it is on. */
export function zenginExchangeOf(ctx: FlowContext, onQuarantine: ZenginExchange["onQuarantine"]): ZenginExchange {
  const { zengin } = ctx.config;
  return {
    transport: createZenginTransport(zengin),
    dir: zengin.dir,
    onQuarantine,
    simulatedBank: zengin.simulatedBank ? (now) => answerRequestFiles(ctx.tx, zengin.dir, now) : undefined,
  };
}
