import type { Config } from "./config.js";

/** One thing production needs, checked against a configuration (docs/operations/running.md, "Preflight"). */
export interface PreflightCheck {
  readonly name: string;
  readonly ok: boolean;
  /** What was found and, when not ok, what to set. */
  readonly detail: string;
}

/** SECRETS_KEY shorter than this is not a random key (`openssl rand -base64 32` gives 44 characters). */
const minimumSecretsKeyLength = 32;

/**
 * What production needs, each checked: `MODE=production` refuses to start unless every one is ok
 * (all problems listed at once), and `furikomi doctor` prints them for any configuration.
 * BANK_CONNECTOR defaults to the simulated bank in the sandbox and to the Zengin files in production.
 */
export function preflight(config: Config): PreflightCheck[] {
  const secretsKey = config.secretsKey;
  const bankConnector = config.bankConnector;
  const baseUrl = new URL(config.publicBaseUrl);
  return [
    {
      name: "SECRETS_KEY",
      ok: secretsKey !== undefined && secretsKey.length >= minimumSecretsKeyLength,
      detail:
        secretsKey === undefined
          ? "not set: stored secrets would be sealed with the public development key; set 32 random bytes (openssl rand -base64 32)"
          : secretsKey.length < minimumSecretsKeyLength
            ? `only ${secretsKey.length} characters: set 32 random bytes (openssl rand -base64 32)`
            : "set",
    },
    {
      name: "e-mail",
      ok: config.smtp !== undefined,
      detail: config.smtp
        ? `SMTP relay ${config.smtp.host}:${config.smtp.port}, from ${config.smtp.from}`
        : "SMTP_HOST is not set: customers would get no two-factor codes; set SMTP_HOST (and SMTP_USER, SMTP_PASSWORD, SMTP_FROM)",
    },
    {
      name: "BANK_CONNECTOR",
      ok: bankConnector !== "simulated",
      detail:
        bankConnector === "simulated" ? "simulated: no money would move; set BANK_CONNECTOR=zengin" : bankConnector,
    },
    {
      name: "PUBLIC_BASE_URL",
      ok: baseUrl.protocol === "https:",
      detail:
        baseUrl.protocol === "https:"
          ? config.publicBaseUrl
          : `${config.publicBaseUrl} is not https: payment links and the hosted page would travel in clear; set the https address customers reach`,
    },
  ];
}

/** The failed checks as lines for the log or the terminal. */
export function describeProblems(checks: readonly PreflightCheck[]): string[] {
  return checks.filter((check) => !check.ok).map((check) => `${check.name}: ${check.detail}`);
}
