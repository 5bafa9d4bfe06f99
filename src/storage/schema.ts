import type { Generated } from "kysely";

/**
 * Table shapes, the same on SQLite and PostgreSQL. Times are ISO 8601 UTC text (sortable),
 * booleans are 0/1 integers, JSON is text, money is whole yen in integers.
 */
export interface Database {
  merchants: MerchantTable;
  api_keys: ApiKeyTable;
  customers: CustomerTable;
  contracts: ContractTable;
  payment_links: PaymentLinkTable;
  charges: ChargeTable;
  refunds: RefundTable;
  async_requests: AsyncRequestTable;
  events: EventTable;
  delivery_attempts: DeliveryAttemptTable;
  idempotency_keys: IdempotencyKeyTable;
  one_time_codes: OneTimeCodeTable;
  mailbox: MailboxTable;
  bank_accounts: BankAccountTable;
  bank_ledger: BankLedgerTable;
  bank_answers: BankAnswerTable;
  link_bank_accounts: LinkBankAccountTable;
  bank_settings: BankSettingsTable;
  bank_authentication_failures: BankAuthenticationFailureTable;
  jobs: JobTable;
  kyc_review_settings: KycReviewSettingsTable;
  dashboard_users: DashboardUserTable;
  dashboard_sessions: DashboardSessionTable;
  csv_batches: CsvBatchTable;
  csv_rows: CsvRowTable;
  totp_challenges: TotpChallengeTable;
  sign_in_attempts: SignInAttemptTable;
  sign_in_challenges: SignInChallengeTable;
  sign_in_code_mail: SignInCodeMailTable;
  onboarding_checklists: OnboardingChecklistTable;
  recovery_codes: RecoveryCodeTable;
  dashboard_invitations: DashboardInvitationTable;
  audit_log: AuditLogTable;
  account_verifications: AccountVerificationTable;
  mandates: MandateTable;
  zengin_contracts: ZenginContractTable;
  plans: PlanTable;
  plan_prices: PlanPriceTable;
  subscriptions: SubscriptionTable;
  subscription_periods: SubscriptionPeriodTable;
  subscription_attempts: SubscriptionAttemptTable;
  subscription_notices: SubscriptionNoticeTable;
  zengin_files: ZenginFileTable;
  zengin_debits: ZenginItemTable;
  zengin_transfers: ZenginItemTable;
  zengin_simulated_bank: ZenginSimulatedBankTable;
  customer_app_sessions: CustomerAppSessionTable;
  stop_requests: StopRequestTable;
}

/** A customer-app session, bound to the e-mail its sign-in code proved (storage/customer-app-sessions.ts). */
export interface CustomerAppSessionTable {
  /** SHA-256 of the cookie value. */
  id_hash: string;
  email_normalized: string;
  /** SHA-256 of the CSRF token. */
  csrf_hash: string;
  created_at: string;
  idle_expires_at: string;
  absolute_expires_at: string;
}

/** A customer's request that the merchant stop debiting under a contract (解約の依頼). */
export interface StopRequestTable {
  id: string;
  merchant_id: string;
  customer_id: string;
  contract_id: string;
  reason: string;
  requested_at: string;
}

/** The account a payment link chose and its bank's verification (storage/account-verifications.ts). */
export interface AccountVerificationTable {
  id: string;
  link_id: string;
  /** MandateVerification */
  method: number;
  state_hash: string;
  return_url: string;
  /** The account details, sealed (storage/sealed.ts). */
  account_sealed: string;
  account_hash: string;
  /** The masked summary (domain/bank-account.ts). */
  summary_json: string;
  /** pending, verified, failed */
  status: string;
  /** BankVerificationFailure */
  failure: number;
  created_at: string;
  expires_at: string;
  verified_at: string | null;
  code_hash: string | null;
  code_issued_at: string | null;
  code_used_at: string | null;
}

/** A direct-debit mandate with its consent evidence; never updated. */
export interface MandateTable {
  id: string;
  merchant_id: string;
  customer_id: string;
  contract_id: string;
  link_id: string;
  verification_id: string;
  method: number;
  account_sealed: string;
  account_hash: string;
  summary_json: string;
  terms_version: string;
  accepted_at: string;
  client_address: string;
  user_agent: string;
  verified_at: string | null;
}

/** Sandbox: when the simulated Zengin bank answers a merchant's files. */
export interface ZenginSimulatedBankTable {
  merchant_id: string;
  result_delay_minutes: number;
}

export interface MerchantTable {
  id: string;
  name: string;
  logo_url: string;
  webhook_url: string;
  /** whsec_… signing secret (needed in clear to sign). */
  webhook_secret: string;
  webhook_failing: number;
  webhook_failing_reason: string;
  created_at: string;
  /** 1: every dashboard user of the merchant must enrol TOTP before doing anything else. */
  dashboard_totp_required: Generated<number>;
  /** The support contact the consent screen shows (empty: not given). */
  support_email: Generated<string>;
  support_phone: Generated<string>;
  support_url: Generated<string>;
  /** src/domain/onboarding.ts's OnboardingState. */
  onboarding_state: Generated<string>;
}

export interface ApiKeyTable {
  id: string;
  merchant_id: string;
  /** SHA-256 of the key; the key itself is shown once and never stored. */
  key_hash: string;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
  /** The dashboard user whose session made the key (null: the command line or the merchant's creation). */
  created_by_user_id: string | null;
  /** SHA-256 of that session's cookie (dashboard_sessions.id_hash). */
  created_in_session: string | null;
}

export interface CustomerTable {
  id: string;
  merchant_id: string;
  email: string;
  /** Trimmed, lower-cased: one customer per e-mail and merchant. */
  email_normalized: string;
  name: string;
  katakana_last_name: string;
  katakana_first_name: string;
  address: string;
  birth_date: string;
  gender: string;
  metadata_json: string;
  kyc_status: number;
  kyc_rejection_reason: string;
  payment_status: number;
  link_initialized: number;
  activated: number;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ContractTable {
  id: string;
  merchant_id: string;
  customer_id: string;
  status: number;
  metadata_json: string;
  created_at: string;
  updated_at: string;
  /** The account (bank_accounts.id) the contract was approved with: its off-session charges debit it. */
  bank_account_id: string | null;
}

/** An on-session payment (chg-*) and its hosted-page session. */
export interface PaymentLinkTable {
  id: string;
  merchant_id: string;
  /** SHA-256 (hex) of the link's token; the token itself is only in the link's URL. */
  token_hash: string;
  /** The token sealed with SECRETS_KEY, for answering a retried create (null before migration 0014). */
  token_sealed: string | null;
  workflow: number;
  customer_id: string | null;
  contract_id: string | null;
  charge_id: string | null;
  price: number;
  description: string;
  metadata_json: string;
  email: string;
  force_kyc: number;
  success_url: string;
  failure_url: string;
  /** open, approving, waiting_kyc, completed, failed, expired (see domain/payment-link.ts) */
  state: string;
  two_factor_verified: number;
  bank_linked: number;
  kyc_submitted: number;
  expires_at: string;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ChargeTable {
  id: string;
  merchant_id: string;
  customer_id: string | null;
  contract_id: string | null;
  on_session_id: string | null;
  request_id: string | null;
  api_source: number;
  status: number;
  amount: number;
  description: string;
  metadata_json: string;
  error_type: number;
  error_message: string;
  refunded_amount: number;
  /** Refunds accepted but not settled; they count against the refundable remainder. */
  pending_refund_amount: number;
  succeeded_at: string | null;
  created_at: string;
  updated_at: string;
  /** The account (bank_accounts.id) the charge is paid from: its contract's, or the one approved on its link. */
  bank_account_id: string | null;
  /** Yen off its initial amount (a subscription's discount): the initial amount is amount + discount. */
  discount: number;
}

export interface RefundTable {
  id: string;
  merchant_id: string;
  charge_id: string;
  amount: number;
  status: number;
  cancellation: number;
  reason: string;
  metadata_json: string;
  error_message: string;
  settle_after: string;
  created_at: string;
  updated_at: string;
  /** 1, 2, 3… in the order the charge's refunds were accepted (storage/refunds.ts insertRefund): their list order. */
  seq: Generated<number>;
}

export interface AsyncRequestTable {
  id: string;
  merchant_id: string;
  charge_id: string;
  status: number;
  attempts: number;
  force_kyc: number;
  error_type: number;
  error_message: string;
  created_at: string;
  updated_at: string;
}

/** The transactional outbox: written with the state change that causes it. */
export interface EventTable {
  id: string;
  merchant_id: string;
  event_type: number;
  event_type_name: string;
  charge_id: string;
  content_json: string;
  created_at: string;
  delivery_status: number;
  attempt_count: number;
  next_attempt_at: string;
  lease_until: string | null;
  delivered_at: string | null;
  /** First attempt of the current retry cycle: retries last 3 days from it (null before it). */
  retry_window_started_at: Generated<string | null>;
  /** Insertion order; events of one charge are delivered one at a time in this order. */
  seq: Generated<number>;
}

export interface DeliveryAttemptTable {
  id: Generated<number>;
  event_id: string;
  attempted_at: string;
  http_status: number;
  error: string;
  duration_ms: number;
}

export interface IdempotencyKeyTable {
  merchant_id: string;
  idempotency_key: string;
  method: string;
  request_hash: string;
  /** in_flight until the first response is stored. */
  state: string;
  response_json: string;
  http_status: number;
  created_at: string;
  expires_at: string;
  /** While in_flight: the claim holds until then (renewed by the running request). */
  lease_until: string | null;
  /** What the first attempt created (e.g. its trx-*), written in the flow's transaction; "" before. */
  resource_id: string;
}

export interface OneTimeCodeTable {
  id: string;
  /** The owner: the pl-* link, or `app:<normalized e-mail>` for a customer-app sign-in code. */
  payment_link_id: string;
  code_hash: string;
  attempts: number;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface MailboxTable {
  id: Generated<number>;
  merchant_id: string;
  to_email: string;
  subject: string;
  body: string;
  code: string;
  sent_at: string;
}

/**
 * An account a customer approved (one per account: a customer may hold several), as the simulated
 * bank (sandbox) keeps it: balance, settings, limits (storage/bank-accounts.ts).
 */
export interface BankAccountTable {
  /** bac-* */
  id: string;
  customer_id: string;
  merchant_id: string;
  /** Bank, branch, type, number and holder, sealed (domain/bank-account.ts serialiseAccount, storage/sealed.ts). */
  account_sealed: string;
  /** keyedHash of the account's identity (domain/bank-account.ts accountIdentity): found again without its numbers. */
  account_key: string;
  balance: number;
  quota: number;
  under_maintenance: number;
  maintenance_until: string | null;
  reject: number;
  latency_ms: number;
  created_at: string;
  /** Running totals of the account's debits (domain/bank-profile.ts DebitTotals), kept by bookLedgerEntry. */
  debits_day_start: string;
  debits_today: number;
  debits_month_start: string;
  debits_this_month: number;
}

/** The columns of bank_accounts that hold the running debit totals. */
export type DebitTotalColumns = "debits_day_start" | "debits_today" | "debits_month_start" | "debits_this_month";

/** An account given on a link's bank step, pending until the link's payment is approved. */
export interface LinkBankAccountTable {
  link_id: string;
  /** The account's details, sealed. */
  account_sealed: string;
  linked_at: string;
}

/** The simulated bank's final answer to a reference: booked (ok) or refused, never both. */
export interface BankAnswerTable {
  reference: string;
  ok: number;
  /** The refusal's ErrorType; 0 when ok. */
  error_type: number;
  message: string;
  at: string;
}

export interface BankLedgerTable {
  id: Generated<number>;
  customer_id: string;
  /**
   * The account (bank_accounts.id) booked on. Every booking writes it; the column is nullable
   * because migration 0016 added it to existing rows (a customer then without an account keeps null).
   */
  account_id: string | null;
  /** The bank-side idempotency key (trx-* or rfd-*): a reference is never booked twice. */
  reference: string;
  amount: number;
  balance_after: number;
  at: string;
}

/** How the sandbox decides a merchant's submitted KYC (KycReviewMode); no row = approve at once. */
export interface KycReviewSettingsTable {
  merchant_id: string;
  mode: number;
  delay_seconds: number;
}

export interface BankSettingsTable {
  merchant_id: string;
  under_maintenance: number;
  maintenance_until: string | null;
}

/** Wrong PIN / one-time password entries of a simulated bank account on a JST day. */
export interface BankAuthenticationFailureTable {
  account_key: string;
  day: string;
  failures: number;
}

/** A merchant dashboard user (docs/guide/dashboard.md). */
export interface DashboardUserTable {
  id: string;
  merchant_id: string;
  email: string;
  email_normalized: string;
  /** scrypt$N$r$p$salt$hash (domain/password-hash.ts). */
  password_hash: string;
  /** Unused since migration 0009: sign-in attempts are counted in sign_in_attempts, by e-mail. */
  failed_sign_ins: number;
  sign_in_locked_until: string | null;
  totp_secret: string;
  totp_enabled: number;
  /** Time-step of the last accepted TOTP code: no code of that step or earlier is accepted again. */
  totp_last_step: number;
  totp_failures: number;
  totp_locked_until: string | null;
  created_at: string;
  updated_at: string;
  /** owner | admin | operator | viewer (domain/dashboard-role.ts). */
  role: string;
  /** 1: the user must enrol TOTP before anything else (invited, or their TOTP was reset). */
  totp_setup_required: number;
  /** Set when an owner removed the user: it never signs in again (its e-mail is freed). */
  removed_at: string | null;
  /** Moved on by removal, a password or TOTP reset and a role change: older sessions and sign-ins stop counting. */
  access_epoch: number;
}

/** A single-use link that invites a user or sets an existing user's new password (migration 0020). */
export interface DashboardInvitationTable {
  token_hash: string;
  id: string;
  merchant_id: string;
  /** invite | password_reset */
  purpose: string;
  email: string;
  role: string;
  user_id: string | null;
  created_by: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

/** One thing a person did in the dashboard (docs/guide/dashboard.md#the-audit-log); never changed. */
export interface AuditLogTable {
  seq: Generated<number>;
  id: string;
  merchant_id: string;
  at: string;
  user_id: string;
  email: string;
  action: string;
  target: string;
  details_json: string;
  client_address: string;
  user_agent: string;
}

export interface DashboardSessionTable {
  /** SHA-256 of the cookie value. */
  id_hash: string;
  user_id: string;
  /** SHA-256 of the CSRF token (the page holds the token itself, in its cookie). */
  csrf_hash: string;
  created_at: string;
  idle_expires_at: string;
  absolute_expires_at: string;
  /** When the user last gave a TOTP or recovery code in this session (step-up). */
  totp_verified_at: string | null;
  /** The user's access_epoch when the session began: it counts only while that is still the user's. */
  user_epoch: number;
}

export interface SignInAttemptTable {
  /** "email:<normalized e-mail>" or "totp:<user id>". */
  key: string;
  failures: number;
  locked_until: string | null;
  last_attempt_at: string;
}

export interface SignInChallengeTable {
  id_hash: string;
  user_id: string;
  expires_at: string;
  created_at: string;
  /** The user's access_epoch when the password was checked. */
  user_epoch: number;
}

/** A customer-app sign-in code waiting for its e-mail (the outbox of SendSignInCode, migration 0029). */
export interface SignInCodeMailTable {
  /** The one_time_codes row. */
  code_id: string;
  email_normalized: string;
  /** The code, sealed with SECRETS_KEY until the message is handed over. */
  code_sealed: string;
  expires_at: string;
  created_at: string;
}

export interface RecoveryCodeTable {
  user_id: string;
  code_hash: string;
  used_at: string | null;
  created_at: string;
}

export interface CsvBatchTable {
  id: string;
  merchant_id: string;
  user_id: string;
  file_name: string;
  content_hash: string;
  header_json: string;
  row_count: number;
  /** uploaded | running */
  status: string;
  expires_at: string;
  confirmed_at: string | null;
  created_at: string;
  /** charges | subscriptions (domain/csv-batch.ts) */
  kind: string;
}

export interface CsvRowTable {
  batch_id: string;
  row_number: number;
  cells_json: string;
  /** invalid | queued | submitted | failed (domain/csv-batch.ts) */
  state: string;
  /** English, as the result's Reason column writes it. */
  reason: string;
  /** The same reason in Japanese ("" for rows stored before it was kept). */
  reason_ja: string;
  customer_id: string | null;
  idempotency_key: string;
  charge_id: string | null;
  updated_at: string;
  /** sub-* created by an imported row (a batch of kind subscriptions). */
  subscription_id: string | null;
}

export interface TotpChallengeTable {
  id: string;
  user_id: string;
  batch_id: string;
  content_hash: string;
  failures: number;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

/** Durable work drained by workers (async charges, refund settlement, link expiry, csv rows). */
export interface JobTable {
  id: string;
  kind: string;
  ref_id: string;
  run_at: string;
  attempts: number;
  lease_until: string | null;
  state: string;
  created_at: string;
}

/** A merchant's consignor settings for the Zengin file exchange (委託者). */
/** A merchant's 口座振替 contract (委託者), keyed by its 委託者コード (docs/operations/zengin.md#contracts). */
export interface ZenginContractTable {
  code: string;
  merchant_id: string;
  /** bank | agent | yucho */
  scope: string;
  /** An agent's bank codes, comma-separated; "": every bank but ゆうちょ. */
  banks: string;
  /** 振込依頼人コード for the 総合振込 (refund) files. */
  transfer_code: string;
  name: string;
  bank_code: string;
  bank_name: string;
  branch_code: string;
  branch_name: string;
  account_type: number;
  account_number: string;
  /** A monthly debit day (1–28); 0 for none. */
  debit_day: number;
  created_at: string;
  /** What its bank accepts in names beyond the 全銀協 rules (some of `( ) - . /`; domain/zengin-characters.ts). */
  name_characters: string;
  updated_at: string;
  /** all | failures_only (domain/zengin-result-style.ts). */
  result_style: string;
}

/** A Zengin file sent (out: writing → sent → answered) or received (in: archived | quarantined). */
export interface ZenginFileTable {
  id: string;
  merchant_id: string;
  /** The 委託者コード of its contract ("" for a received file matched to none). */
  contract_code: string;
  /** "91" account debits, "21" transfers. */
  kind: string;
  direction: string;
  date: string;
  name: string;
  state: string;
  answers: string | null;
  record_count: number;
  total_amount: number;
  done_count: number;
  done_amount: number;
  failed_count: number;
  failed_amount: number;
  sha256: string;
  reason: string;
  /** out: the consignor settings the file was recorded with (JSON). */
  consignor_json: string;
  due_at: string | null;
  created_at: string;
  updated_at: string;
  /** in: 1 when it came into incoming/ under a name the exchange does not expect. */
  unexpected_name: number;
}

/** A debit (reference trx-*) or a transfer (reference rfd-*): scheduled → filed → answered, or cancelled. */
export interface ZenginItemTable {
  reference: string;
  merchant_id: string;
  /** The 委託者コード of the contract whose file carries it. */
  contract_code: string;
  date: string | null;
  state: string;
  file_id: string | null;
  customer_number: string | null;
  amount: number;
  new_code: number;
  /** Bank, branch, 預金種目, 7-digit number and holder kana as the file carries them, sealed (storage/sealed.ts). */
  account_sealed: string;
  /** keyedHash of the account's identity (bank, branch, number): finds the merchant's earlier debits of it. */
  account_key: string;
  result_code: number | null;
  created_at: string;
  updated_at: string;
}

/** A merchant's plan (domain/plan.ts); `debit_day` 0 is 末日, `discount_kind` "" none, "amount" or "percent". */
export interface PlanTable {
  id: string;
  merchant_id: string;
  name: string;
  interval_unit: string;
  interval_count: number;
  debit_day: number;
  first_period: string;
  discount_kind: string;
  discount_value: number;
  discount_periods: number;
  /** Dunning (migration 0030): "stop" | "retry". */
  dunning_action: string;
  dunning_retry_after_days: number;
  dunning_max_attempts: number;
  dunning_cancel_on_give_up: number;
  /** Days before a debit date the 振替予定のお知らせ is sent; 0: none. */
  notice_days: number;
  metadata_json: string;
  created_at: string;
  updated_at: string;
}

/** A price version of a plan; `from_period` null for the first. */
export interface PlanPriceTable {
  plan_id: string;
  version: number;
  amount: number;
  from_period: string | null;
  created_at: string;
}

/** A customer's subscription (domain/subscription.ts); periods are "YYYY-MM", dates "YYYY-MM-DD" (JST). */
export interface SubscriptionTable {
  id: string;
  merchant_id: string;
  customer_id: string;
  contract_id: string;
  plan_id: string;
  amount: number | null;
  start_period: string;
  end_period: string | null;
  status: string;
  cancel_at_period_end: number;
  end_reason: string | null;
  next_period: string | null;
  next_debit_date: string | null;
  last_period: string | null;
  description: string;
  metadata_json: string;
  created_at: string;
  updated_at: string;
  ended_at: string | null;
  /** While past due (migration 0030): why, and the unpaid period. */
  past_due_reason: string | null;
  past_due_period: string | null;
  /** 合算 (migration 0033): the debts the next charged period adds, JSON [{period, attempt, amount}]. */
  carry_json: string;
}

/** One row per subscription and period (the primary key): what the period was charged. */
export interface SubscriptionPeriodTable {
  subscription_id: string;
  period: string;
  merchant_id: string;
  plan_id: string;
  number: number;
  debit_date: string;
  price_version: number;
  initial_amount: number;
  discount: number;
  final_amount: number;
  charge_id: string | null;
  created_at: string;
  /** 合算 (migration 0033): the debts its charge carried in, JSON [{period, attempt, amount}]. */
  carried_json: string;
}

/** A 振替予定のお知らせ queued for a subscription's period (once: the primary key). */
export interface SubscriptionNoticeTable {
  subscription_id: string;
  period: string;
  created_at: string;
}

/** A period's charges: attempt 1 its charge, later attempts its re-debits. */
export interface SubscriptionAttemptTable {
  subscription_id: string;
  period: string;
  attempt: number;
  charge_id: string;
  debit_date: string;
  created_at: string;
}

/** What a merchant saved of its going-live checklist (migration 0032). */
export interface OnboardingChecklistTable {
  merchant_id: string;
  business_json: Generated<string>;
  webhook_test_event_id: Generated<string>;
  terms_version: Generated<string>;
  terms_accepted_at: string | null;
  terms_accepted_by: Generated<string>;
  sent_back_reason: Generated<string>;
  updated_at: string;
}
