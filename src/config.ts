import { resolve } from "node:path";
import type { Mode } from "./domain/mode.js";
import { limits } from "./domain/limits.js";
import { defaultPasswordHashCost, leastSandboxScryptN, type PasswordHashCost } from "./domain/password-hash.js";

export type { Mode };

export interface Config {
  readonly port: number;
  /** The simulated bank's own site (sandbox mode): PORT+1 by default, a free port when PORT is 0. */
  readonly sandboxBankPort: number;
  readonly host: string;
  readonly databaseUrl: string;
  readonly mode: Mode;
  readonly publicBaseUrl: string;
  readonly logLevel: string;
  /** PEM files; when both are set the listener speaks TLS (HTTP/2 + HTTP/1.1 via ALPN). */
  readonly tlsCertFile?: string;
  readonly tlsKeyFile?: string;
  /** "manual" lets SandboxService.AdvanceClock move time (sandbox only, for test suites). */
  readonly sandboxClock: "system" | "manual";
  /** How long a verified API key is trusted before the database is asked again. */
  readonly apiKeyCacheMs: number;
  /** How long a worker holds a claimed job; a job whose process died is taken over after it. */
  readonly jobLeaseMs: number;
  /** Background workers (async charges, webhooks, refunds, expiry); off for one-shot tools. */
  readonly workers: boolean;
  /** How often idle workers look for due work when nothing rang them (commits and, on PostgreSQL, other instances ring). */
  readonly workerPollMs: number;
  /** How long one webhook delivery attempt may take (connect, send, answer) before it counts as failed. */
  readonly webhookTimeoutMs: number;
  /** The SMTP relay customer e-mail goes through in production (SMTP_HOST unset: none). */
  readonly smtp: SmtpSettings | undefined;
  /** The simulated banks' own closing days ("YYYY-MM-DD", JST) on top of the national holidays. */
  readonly bankExtraHolidays: readonly string[];
  /** Requests per second each merchant (or payment link) earns, and how many it may spend at once; 0 turns the limit off. */
  readonly rateLimit: { readonly ratePerSecond: number; readonly burst: number };
  /** Dashboard SignIn calls per minute per client address and per e-mail (each also the burst); 0 turns one off. */
  readonly signInRateLimit: { readonly perAddressPerMinute: number; readonly perEmailPerMinute: number };
  /** PASSWORD_HASH_SCRYPT_N: the scrypt cost of new dashboard password hashes (lower only in a sandbox). */
  readonly passwordHashCost: PasswordHashCost;
  /** Seals the secrets the database keeps (webhook signing secrets, TOTP seeds); unset: a fixed development key. */
  readonly secretsKey: string | undefined;
  /** Keys sealed with before (SECRETS_KEY_PREVIOUS, comma separated), still opened during a rotation. */
  readonly previousSecretsKeys: readonly string[];
  /** The share of successful calls written to the access log (0–1); failures are always logged. */
  readonly accessLogSampleRate: number;
  /** Slow clients: time to send the headers, the whole request, and how long an idle connection stays open. */
  readonly httpTimeouts: { readonly headersMs: number; readonly requestMs: number; readonly idleMs: number };
  /** Streams one HTTP/2 connection may have open at once (HTTP2_MAX_CONCURRENT_STREAMS). */
  readonly http2MaxConcurrentStreams: number;
  /** Strict-Transport-Security is sent: the listener speaks TLS or PUBLIC_BASE_URL is https. */
  readonly hsts: boolean;
  /** BANK_CONNECTOR: the instant simulated bank (the sandbox default) or the Zengin file exchange (production's). */
  readonly bankConnector: "simulated" | "zengin";
  readonly zengin: ZenginConfig;
}

/** The Zengin file exchange (docs/operations/zengin.md). */
export interface ZenginConfig {
  /** ZENGIN_DIR, with outgoing/, incoming/, archive/ and quarantine/. */
  readonly dir: string;
  /** ZENGIN_SIMULATED_BANK: the simulated bank answers request files (sandbox only, on by default there). */
  readonly simulatedBank: boolean;
  readonly leadDays: number;
  /** ZENGIN_FILE_CUTOFF, "HH:MM" JST on the business day before the debit date. */
  readonly fileCutoff: string;
  readonly resultDeadlineDays: number;
  /** ZENGIN_SFTP_URL sftp://user@host:port/path; unset: the directory transport. */
  readonly sftp?: { readonly url: string; readonly keyFile: string; readonly hostKey: string };
}

/** Reads the configuration from environment variables; every one has a documented default. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 8080);
  const mode = (env.MODE ?? "sandbox") as Mode;
  if (mode !== "sandbox" && mode !== "production") {
    throw new Error(`MODE must be sandbox or production, not ${env.MODE}`);
  }
  const sandboxClock = env.SANDBOX_CLOCK === "manual" ? "manual" : "system";
  if (sandboxClock === "manual" && mode !== "sandbox") {
    throw new Error("SANDBOX_CLOCK=manual is only allowed in sandbox mode");
  }
  const ratePerSecond = Number(env.RATE_LIMIT_PER_SECOND ?? 10_000);
  // Production with the simulated bank is refused by the preflight (src/preflight.ts), which lists it
  // with every other problem at once.
  const bankConnector = env.BANK_CONNECTOR || (mode === "sandbox" ? "simulated" : "zengin");
  if (bankConnector !== "simulated" && bankConnector !== "zengin")
    throw new Error(`BANK_CONNECTOR must be simulated or zengin, not ${bankConnector}`);
  const http2MaxConcurrentStreams = Number(env.HTTP2_MAX_CONCURRENT_STREAMS ?? limits.http2ConcurrentStreamsDefault);
  if (!Number.isInteger(http2MaxConcurrentStreams) || http2MaxConcurrentStreams < 1) {
    throw new Error(`HTTP2_MAX_CONCURRENT_STREAMS must be a whole number ≥ 1, not ${env.HTTP2_MAX_CONCURRENT_STREAMS}`);
  }
  const publicBaseUrl = (env.PUBLIC_BASE_URL ?? `http://localhost:${port}`).replace(/\/$/, "");
  return Object.freeze({
    port,
    sandboxBankPort: Number(env.SANDBOX_BANK_PORT ?? (port === 0 ? 0 : port + 1)),
    host: env.HOST ?? "0.0.0.0",
    databaseUrl: env.DATABASE_URL ?? `file:${resolve("data/furikomi.db")}`,
    mode,
    publicBaseUrl,
    logLevel: env.LOG_LEVEL ?? "info",
    accessLogSampleRate: sampleRate(env.ACCESS_LOG_SAMPLE_RATE),
    tlsCertFile: env.TLS_CERT_FILE,
    tlsKeyFile: env.TLS_KEY_FILE,
    sandboxClock,
    workers: env.WORKERS !== "off",
    workerPollMs: Number(env.WORKER_POLL_MS ?? 1000),
    webhookTimeoutMs: Number(env.WEBHOOK_TIMEOUT_MS ?? limits.webhookTimeoutMsDefault),
    apiKeyCacheMs: Number(env.API_KEY_CACHE_MS ?? 5000),
    jobLeaseMs: Number(env.JOB_LEASE_MS ?? limits.jobLeaseMsDefault),
    smtp: smtpSettings(env),
    bankExtraHolidays: extraHolidays(env.BANK_EXTRA_HOLIDAYS),
    secretsKey: env.SECRETS_KEY || undefined,
    previousSecretsKeys: env.SECRETS_KEY_PREVIOUS === undefined ? [] : env.SECRETS_KEY_PREVIOUS.split(","),
    rateLimit: Object.freeze({ ratePerSecond, burst: Number(env.RATE_LIMIT_BURST ?? ratePerSecond * 2) }),
    signInRateLimit: Object.freeze({
      perAddressPerMinute: Number(env.SIGN_IN_RATE_LIMIT_PER_ADDRESS ?? 30),
      perEmailPerMinute: Number(env.SIGN_IN_RATE_LIMIT_PER_EMAIL ?? 10),
    }),
    passwordHashCost: passwordHashCost(env.PASSWORD_HASH_SCRYPT_N, mode),
    httpTimeouts: Object.freeze({
      headersMs: Number(env.HTTP_HEADERS_TIMEOUT_MS ?? limits.httpHeadersTimeoutMsDefault),
      requestMs: Number(env.HTTP_REQUEST_TIMEOUT_MS ?? limits.httpRequestTimeoutMsDefault),
      idleMs: Number(env.HTTP_IDLE_TIMEOUT_MS ?? limits.httpIdleTimeoutMsDefault),
    }),
    http2MaxConcurrentStreams,
    hsts: Boolean(env.TLS_CERT_FILE && env.TLS_KEY_FILE) || publicBaseUrl.startsWith("https://"),
    bankConnector,
    zengin: zenginConfig(env, mode),
  });
}

function zenginConfig(env: NodeJS.ProcessEnv, mode: Mode): ZenginConfig {
  const simulatedBank = (env.ZENGIN_SIMULATED_BANK ?? (mode === "sandbox" ? "on" : "off")) === "on";
  if (simulatedBank && mode === "production")
    throw new Error("ZENGIN_SIMULATED_BANK=on is only allowed in sandbox mode");
  const fileCutoff = env.ZENGIN_FILE_CUTOFF ?? "15:00";
  if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(fileCutoff))
    throw new Error(`ZENGIN_FILE_CUTOFF must be HH:MM, not ${fileCutoff}`);
  const whole = (name: string, fallback: number) => {
    const value = Number(env[name] ?? fallback);
    if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number of days`);
    return value;
  };
  const sftpUrl = env.ZENGIN_SFTP_URL;
  if (sftpUrl && (!env.ZENGIN_SFTP_KEY_FILE || !env.ZENGIN_SFTP_HOST_KEY))
    throw new Error(
      "ZENGIN_SFTP_URL needs ZENGIN_SFTP_KEY_FILE and ZENGIN_SFTP_HOST_KEY (the server's pinned host key)",
    );
  return Object.freeze({
    dir: resolve(env.ZENGIN_DIR ?? "data/zengin"),
    simulatedBank,
    leadDays: whole("ZENGIN_LEAD_DAYS", 2),
    fileCutoff,
    resultDeadlineDays: whole("ZENGIN_RESULT_DEADLINE_DAYS", 5),
    sftp: sftpUrl
      ? { url: sftpUrl, keyFile: env.ZENGIN_SFTP_KEY_FILE ?? "", hostKey: env.ZENGIN_SFTP_HOST_KEY ?? "" }
      : undefined,
  });
}

/** The SMTP relay's settings (SMTP_*), read here and handed to the SMTP notifier (src/ports/smtp-notifier.ts). */
export interface SmtpSettings {
  host: string;
  port: number;
  /** Implicit TLS from the first byte (port 465); otherwise STARTTLS is used when the server offers it. */
  secure: boolean;
  user?: string;
  password?: string;
  /** The envelope and From: address. */
  from: string;
  /** The From: display name (non-ASCII is sent as an RFC 2047 encoded word). */
  fromName: string;
  /** Refuse to send when the server does not offer STARTTLS on a plain connection. */
  requireTls: boolean;
  /** A PEM file of certificates trusted for the relay besides the system's (a private CA). */
  caFile?: string;
  /** Connections kept open to the relay and reused. */
  maxConnections: number;
}

/**
 * SMTP_HOST, SMTP_PORT (587), SMTP_SECURE (implicit TLS; default on for port 465), SMTP_USER, SMTP_PASSWORD,
 * SMTP_FROM, SMTP_FROM_NAME, SMTP_REQUIRE_TLS, SMTP_CA_FILE, SMTP_POOL_SIZE (docs/reference/configuration.md).
 */
function smtpSettings(env: NodeJS.ProcessEnv): SmtpSettings | undefined {
  if (!env.SMTP_HOST) return undefined;
  const port = Number(env.SMTP_PORT ?? 587);
  return Object.freeze({
    host: env.SMTP_HOST,
    port,
    secure: env.SMTP_SECURE ? env.SMTP_SECURE === "true" : port === 465,
    user: env.SMTP_USER || undefined,
    password: env.SMTP_PASSWORD || undefined,
    from: env.SMTP_FROM ?? `no-reply@${env.PUBLIC_BASE_URL ? new URL(env.PUBLIC_BASE_URL).hostname : "localhost"}`,
    fromName: env.SMTP_FROM_NAME ?? "furikomi",
    requireTls: env.SMTP_REQUIRE_TLS === "true",
    caFile: env.SMTP_CA_FILE || undefined,
    maxConnections: Number(env.SMTP_POOL_SIZE ?? 5),
  });
}

/** ACCESS_LOG_SAMPLE_RATE: a number from 0 to 1 (default 1: every call). */
/**
 * scrypt's N: a power of two, never below the production default in production. A sandbox (a test
 * suite's server) may go down to 2^10 so that signing in does not dominate its run time.
 */
function passwordHashCost(value: string | undefined, mode: Mode): PasswordHashCost {
  if (value === undefined || value === "") return defaultPasswordHashCost;
  const n = Number(value);
  const least = mode === "sandbox" ? leastSandboxScryptN : defaultPasswordHashCost.N;
  if (!Number.isInteger(n) || n < least || n > 2 ** 20 || (n & (n - 1)) !== 0)
    throw new Error(
      `PASSWORD_HASH_SCRYPT_N must be a power of two from ${least} to ${2 ** 20} in ${mode} mode, not ${value}`,
    );
  return Object.freeze({ ...defaultPasswordHashCost, N: n });
}

function sampleRate(value: string | undefined): number {
  const rate = Number(value ?? 1);
  if (!(rate >= 0 && rate <= 1)) throw new Error(`ACCESS_LOG_SAMPLE_RATE must be a number from 0 to 1, not ${value}`);
  return rate;
}

/** BANK_EXTRA_HOLIDAYS: comma-separated JST dates, e.g. "2026-12-30,2027-05-06". */
function extraHolidays(value: string | undefined): readonly string[] {
  const dates = (value ?? "")
    .split(",")
    .map((date) => date.trim())
    .filter(Boolean);
  const malformed = dates.find((date) => !/^\d{4}-\d{2}-\d{2}$/.test(date));
  if (malformed) throw new Error(`BANK_EXTRA_HOLIDAYS must list YYYY-MM-DD dates, not ${malformed}`);
  return Object.freeze(dates);
}
