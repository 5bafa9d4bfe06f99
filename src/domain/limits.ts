import { daysMs, hoursMs, minutesMs, secondsMs } from "./duration.js";

/**
 * Every bound of the service in one place (docs/reference/limits.md#the-catalogue, which must list
 * the same names and values: test/unit/limits-catalogue.test.ts). Names put the thing first and
 * the unit last (`…Ms`, `…Bytes`, `…Days`; a count is `…Max`, `…Rows`, `…Size` or `…Attempts`).
 * The `.proto` files declare the wire's own bounds too (protovalidate); the entries that mirror
 * them are pinned by test/api/pins.test.ts.
 */
const catalogue = {
  // Request and response sizes.
  /** Connect and gRPC bodies: a CSV upload (2,000,000 bytes) fits with room to spare. */
  rpcBodyBytesMax: 4 * 1024 * 1024,
  /** Plain HTTP+JSON bodies: no JSON request needs more. */
  httpBodyBytesMax: 1024 * 1024,
  /** A charge's refunds carried by GetCharge; the rest through ListRefunds (refundsTruncated). */
  chargeRefundsShownMax: 10,
  /** A customer's most recent charges in GetCustomerDetail; more sets chargesTruncated. */
  customerDetailChargesMax: 500,
  /** The upcoming debits the customer app lists (ListUpcomingDebits), soonest first. */
  customerUpcomingDebitsMax: 100,
  /** The subscriptions the customer app lists, newest first: a page is enough for one e-mail. */
  customerSubscriptionsMax: 100,
  /** The latest periods shown with each: a year of a monthly plan. */
  customerSubscriptionPeriodsShown: 12,
  /** Rows read per page while exporting charges as CSV: bounds memory per query. */
  chargeExportPageRows: 500,
  /** Rows read per page while exporting the audit log: bounds memory per query. */
  auditExportPageRows: 500,
  /** A page when the request asks for no size (lists, bank and branch search, recent CSV batches). */
  pageSizeDefault: 20,
  /** An audit-log page when the request asks for no size: entries are short. */
  auditPageSizeDefault: 50,
  /** The most recent Zengin files the CLI and the dashboard list (newest first). */
  zenginFileListMax: 500,

  // Charges (mirrors the .proto rules, docs/reference/limits.md#lengths-and-amounts).
  /** Whole yen: the smallest charge. */
  chargePriceYenMin: 1,
  /** Whole yen: the largest charge a bank transfer here takes. */
  chargePriceYenMax: 10_000_000,
  /** charge.description, in characters. */
  chargeDescriptionLengthMax: 255,
  /** An e-mail address (RFC 5321's path limit). */
  customerEmailLengthMax: 254,
  /** metadata keys per object. */
  metadataKeysMax: 50,
  /** A metadata key, in characters. */
  metadataKeyLengthMax: 40,
  /** A metadata value, in characters. */
  metadataValueLengthMax: 500,
  /** An idempotency key, in characters (docs/reference/contract.md#idempotency). */
  idempotencyKeyLengthMax: 255,
  /** The bank's account-holder field (カナ), in characters. */
  accountHolderLengthMax: 30,

  // Payment links and the hosted page.
  /** A payment link opens for 90 minutes (docs/guide/hosted-page.md). */
  paymentLinkValidityMs: minutesMs(90),
  /** One approval holds its link this long; a crashed one is taken over after it. */
  paymentLinkApprovalLeaseMs: minutesMs(2),
  /** A finished link still shows its outcome this long after its validity. */
  paymentLinkFinishedGraceMs: minutesMs(10),
  /** Polls of an approval another request is running: 1600 × 25 ms is 40 s, past the simulated bank's 30 s. */
  paymentLinkApprovalWaitPolls: 1600,
  /** Between those polls. */
  paymentLinkApprovalPollMs: 25,
  /** A one-time code (hosted page, customer app) is good this long. */
  oneTimeCodeValidityMs: minutesMs(10),
  /** Wrong tries of one code before a new one must be asked for. */
  oneTimeCodeAttemptsMax: 5,
  /** Between two codes sent for one link or e-mail. */
  oneTimeCodeResendIntervalMs: secondsMs(30),
  /** Codes one link may send in all: the page cannot flood a mailbox. */
  oneTimeCodeSendsPerLinkMax: 10,
  /** Customer-app sign-in codes one e-mail may receive in a day. */
  customerSignInCodesPerDayMax: 10,
  /** The sandbox bank site's sign-in code is good this long. */
  bankSiteCodeValidityMs: minutesMs(5),
  /** An account-verification code is good this long. */
  accountVerificationValidityMs: minutesMs(10),
  /** eKYC's machine review answers within this (sandbox timing). */
  ekycMachineReviewMs: minutesMs(5),
  /** eKYC's photo review answers within this during office hours (sandbox timing). */
  ekycPhotoReviewMs: hoursMs(3),

  // Off-session charges and refunds.
  /** Bank calls of one async charge before it fails (docs/reference/contract.md#retry-guidance). */
  offSessionBankAttemptsMax: 6,
  /** The first wait between those calls; it doubles. */
  offSessionRetryFirstDelayMs: minutesMs(2),
  /** A synchronous charge whose process died is recovered by a job after this. */
  offSessionSyncRecoveryDelayMs: minutesMs(1),
  /** The first wait before a failed refund settlement is tried again; it doubles. */
  refundRetryFirstDelayMs: minutesMs(5),
  /** The longest wait between refund settlement tries. */
  refundRetryDelayMaxMs: hoursMs(1),

  // CSV batches.
  /** Rows of one batch: 300 × 10 columns stays under SQLite's 32,766 bound parameters. */
  csvBatchRowsMax: 300,
  /** Starts of one row's charge (an unexpected failure) before the row fails. */
  csvRowStartAttemptsMax: 3,
  /** The first wait before such a start is tried again; it doubles. */
  csvRowStartRetryFirstDelayMs: secondsMs(1),
  /** Between looks at a row whose charge another request is running. */
  csvRowInFlightRetryMs: secondsMs(5),
  /** Looks at such a row before it fails: 30 × 5 s. */
  csvRowInFlightAttemptsMax: 30,
  /** A confirmation challenge is answered within this. */
  csvBatchChallengeMs: minutesMs(5),
  /** An unconfirmed batch lives this long. */
  csvBatchUnconfirmedMs: minutesMs(30),
  /** Wrong codes at confirmation before it locks. */
  csvBatchConfirmationFailuresMax: 3,
  /** How long that lock lasts. */
  csvBatchConfirmationLockMs: minutesMs(15),
  /** Rows of one subscription import: all are created in the confirming transaction. */
  subscriptionImportRowsMax: 300,
  /** Events read into a charge page's timeline (a charge has a handful; refunds add a few each). */
  chargeTimelineEventsMax: 100,

  // Dashboard sign-in and sessions (docs/reference/limits.md#dashboard-sign-in-and-two-step-verification).
  /** A session ends after this without a call. */
  dashboardSessionIdleMs: minutesMs(30),
  /** A session ends this long after sign-in whatever happens. */
  dashboardSessionAbsoluteMs: hoursMs(12),
  /** The idle deadline moves at most this often, so a busy page does not write on every call. */
  dashboardSessionTouchEveryMs: minutesMs(1),
  /** Passwords checked per e-mail in a run before it locks. */
  signInPasswordsMax: 10,
  /** How long that lock lasts, and how long a run is remembered. */
  signInLockMs: minutesMs(15),
  /** Wrong second-step codes per user before they lock. */
  totpFailuresMax: 5,
  /** How long that lock lasts. */
  totpLockMs: minutesMs(15),
  /** The sign-in token between the two steps, and a step-up, last this long. */
  signInSecondStepMs: minutesMs(5),
  /** An invitation to a dashboard team is good this long. */
  invitationValidityMs: hoursMs(72),
  /** Audit entries are kept this long (a year and a month of evidence). */
  auditRetentionDays: 400,
  /** A user agent kept as evidence (audit, mandates), in characters: enough for any real browser. */
  auditUserAgentLengthMax: 512,

  // Idempotency, jobs and webhooks.
  /** An idempotency key answers replays this long (docs/reference/contract.md#idempotency). */
  idempotencyRetentionMs: hoursMs(72),
  /** A claimed key is held this long by a request that may have died. */
  idempotencyLeaseMs: minutesMs(1),
  /** Expired keys are purged at most this often. */
  idempotencyPurgeEveryMs: minutesMs(10),
  /** A worker holds a claimed job this long (JOB_LEASE_MS overrides). */
  jobLeaseMsDefault: minutesMs(1),
  /** The first wait before a failed job runs again; it doubles. */
  jobRetryFirstDelayMs: minutesMs(1),
  /** The longest wait between job runs. */
  jobRetryDelayMaxMs: hoursMs(1),
  /** Webhook retries go on at least this long from the cycle's first attempt (docs/guide/webhooks.md). */
  webhookRetryWindowMs: daysMs(3),
  /** The shortest wait before a webhook retry. */
  webhookRetryWaitMinMs: secondsMs(1),

  // Zengin files.
  /** Items read and encoded at a time while a request file is written: bounds memory per query. */
  zenginRequestPageRows: 2000,
  /** Records of one request file: its trailer's 合計件数 has 6 digits (the rest wait for the next date). */
  zenginFileRecordsMax: 999_999,
  /** Yen of one request file: its trailer's 合計金額 has 12 digits (the rest wait for the next date). */
  zenginFileAmountYenMax: 999_999_999_999,
  /** Records of a result file looked up, checked and applied at a time. */
  zenginResultBatchRows: 1000,
  /** The Zengin cycle job runs this often. */
  zenginCycleIntervalMs: minutesMs(1),

  // Recurring billing.
  /** Subscriptions charged in one transaction of the cycle: bounds its locks (about 0.1 s) and memory. */
  subscriptionCyclePageRows: 1000,
  /** The subscription cycle (simulated bank) looks for due periods this often. */
  subscriptionCycleIntervalMs: minutesMs(1),
  /** Periods GetSubscription shows, newest first. */
  subscriptionPeriodsShown: 24,

  // The listener and the outside world (environment variables override the defaults).
  /** HTTP2_MAX_CONCURRENT_STREAMS when unset (Node's own would be 4,294,967,295). */
  http2ConcurrentStreamsDefault: 100,
  /** HTTP_HEADERS_TIMEOUT_MS when unset. */
  httpHeadersTimeoutMsDefault: secondsMs(30),
  /** HTTP_REQUEST_TIMEOUT_MS when unset. */
  httpRequestTimeoutMsDefault: minutesMs(1),
  /** HTTP_IDLE_TIMEOUT_MS when unset: longer than common proxies' 60 s keep-alive. */
  httpIdleTimeoutMsDefault: secondsMs(65),
  /** WEBHOOK_TIMEOUT_MS when unset: one delivery attempt gives up after this. */
  webhookTimeoutMsDefault: secondsMs(10),
  /** GET /healthz answers "not ready" when the database takes longer than this (a hung connection is not ready). */
  readinessProbeTimeoutMs: secondsMs(2),
  /** On shutdown, open connections get this long to finish before they are closed. */
  serverCloseGraceMs: secondsMs(10),
  /** SQLite waits this long for a lock another connection holds. */
  sqliteBusyTimeoutMs: secondsMs(5),
  /** The bank's SFTP server must finish its handshake within this. */
  zenginSftpReadyTimeoutMs: secondsMs(20),
  /** An SMTP conversation gives up after this. */
  smtpTimeoutMs: secondsMs(30),
  /** Ids per `IN (…)` list (an UPDATE or a SELECT of many rows): within every database's parameter limit. */
  sqlInListIds: 500,
  /** Prepared statements cached per SQLite connection. */
  sqliteStatementCacheMax: 2000,
  /** The first wait before the PostgreSQL wake channel reconnects; it doubles. */
  wakeReconnectFirstMs: 500,
  /** The longest wait between those reconnects. */
  wakeReconnectMaxMs: secondsMs(30),
  /** `furikomi listen` looks back this far on every poll: events can commit a little after their created_at. */
  cliListenLookBackMs: minutesMs(1),
  /** `furikomi listen` gives a forward to the local URL this long. */
  cliListenForwardTimeoutMs: secondsMs(10),
  /** The dashboard follows a running batch this long. */
  dashboardBatchPollForMs: minutesMs(7),
  /** The dashboard asks for a running batch's progress this often. */
  dashboardBatchPollEveryMs: 1500,
  /** The hosted page's resend countdown shows at most this (the server enforces the throttle; clocks may disagree). */
  hostedPageResendWaitMaxMs: minutesMs(10),
};

/** Frozen: a limit changes in this file and its doc, never at run time. */
export const limits: Readonly<typeof catalogue> = Object.freeze(catalogue);

export type LimitName = keyof typeof limits;
