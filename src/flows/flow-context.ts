import type { Config } from "../config.js";
import type { AuditChange } from "../domain/audit.js";
import type { ModeRules } from "../domain/mode.js";
import type { BankGateway } from "../ports/bank-gateway.js";
import type { BusinessMetrics } from "../ports/business-metrics.js";
import type { Clock } from "../ports/clock.js";
import type { BankRedirectVerifier, MandateVerifier } from "../ports/mandate-verifier.js";
import type { Notifier } from "../ports/notifier.js";
import type { Transactor, Tx } from "../storage/transactor.js";
import type { WakeTopic } from "../storage/wake-channel.js";

/** What every flow is given: storage, the clock, the configuration, and the worker doorbell. */
export interface FlowContext {
  readonly tx: Transactor;
  readonly clock: Clock;
  readonly config: Config;
  /** What the deployment's mode allows, decided once at the composition root. */
  readonly mode: ModeRules;
  /** The bank behind the gateway (the simulator in sandbox mode). */
  readonly bank: BankGateway;
  /**
   * How banks verify a direct-debit mandate: online at the bank's own page (the simulated bank
   * site, sandbox only) or with the first debit (flows/account-verification.ts picks by bank).
   */
  readonly verifiers: { readonly bankRedirect?: BankRedirectVerifier; readonly firstDebit: MandateVerifier };
  /** Customer e-mail: the sandbox mailbox in sandbox mode, SMTP in production. */
  readonly notifier: Notifier;
  /** Business metrics (charges, jobs); absent in one-shot tools. */
  readonly metrics?: BusinessMetrics;
  /**
   * Set for a person's dashboard call (flows/audit.ts): a flow that changes something calls it in
   * the transaction of the change. Absent for API-key calls, jobs and the command line.
   */
  readonly audit?: (trx: Tx, change: AuditChange) => Promise<void>;
  /** Rings a worker so committed work starts now rather than at the next poll. */
  wake(topic: WakeTopic): void;
}

/** The caller of a merchant API request. */
export interface MerchantPrincipal {
  readonly id: string;
  readonly name: string;
}
