/** Deployment mode: sandbox (the default) simulates the bank; production talks to real ports. */
export type Mode = "sandbox" | "production";

/**
 * What a mode allows, decided once at the composition root and handed to the flows
 * (FlowContext.mode), so no flow asks which mode it runs in (docs/architecture.md#modes).
 */
export interface ModeRules {
  readonly mode: Mode;
  /** The API keys this deployment issues and accepts: a key of the other mode is refused. */
  readonly apiKeyPrefix: "sk_test_" | "sk_live_";
  /**
   * The sandbox's tools: triggerError metadata, forced refund outcomes, automatic KYC decisions,
   * the simulated bank's site on loopback, the mailbox that shows invitation links.
   */
  readonly sandboxTools: boolean;
  /** Redirect and webhook URLs must be https to public addresses (production). */
  readonly publicUrlsOnly: boolean;
  /** Real money moves: only a merchant the operator approved may charge (src/domain/onboarding.ts). */
  readonly liveMoney: boolean;
  /** The bank directory lists the simulated banks (99xx) beside the real ones. */
  readonly simulatedBanks: boolean;
}

const rules: Readonly<Record<Mode, ModeRules>> = Object.freeze({
  sandbox: Object.freeze({
    mode: "sandbox",
    apiKeyPrefix: "sk_test_",
    sandboxTools: true,
    publicUrlsOnly: false,
    liveMoney: false,
    simulatedBanks: true,
  }),
  production: Object.freeze({
    mode: "production",
    apiKeyPrefix: "sk_live_",
    sandboxTools: false,
    publicUrlsOnly: true,
    liveMoney: true,
    simulatedBanks: false,
  }),
});

export function modeRulesOf(mode: Mode): ModeRules {
  return rules[mode];
}
