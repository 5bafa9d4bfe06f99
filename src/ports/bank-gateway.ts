import type { ErrorType } from "../../gen/payments/v1/enums_pb.js";
import type { Tx } from "../storage/transactor.js";

/**
 * What the bank answered. A refusal names the contract's ErrorType (docs/reference/contract.md#errors); `retryable` for maintenance, with
 * `retryAfter` when the bank knows when its maintenance window ends. `scheduled`: the Zengin file
 * exchange took the debit or transfer for a file; its result comes later, from the bank's result
 * file (the charge or refund stays pending until then).
 */
export type BankResult =
  | { ok: true; scheduled?: undefined }
  | { ok: false; scheduled?: undefined; errorType: ErrorType; message: string; retryable: boolean; retryAfter?: Date }
  | { ok: false; scheduled: true; date?: string };

/** An answer given at once (a bank that books immediately: the simulated bank). */
export type ImmediateBankResult = Exclude<BankResult, { scheduled: true }>;

/**
 * A debit or a refund: on which account (bank_accounts.id: the charge's, docs/reference/invariants.md),
 * how much, under which reference.
 */
export interface BankRequest {
  merchantId: string;
  accountId: string;
  amount: number;
  reference: string;
  at: Date;
  /**
   * A debit date (YYYY-MM-DD, JST) the caller decided (a subscription period's): a bank of files
   * schedules the debit for that date's file instead of the next one its timetable allows.
   */
  debitDate?: string;
}

/**
 * The bank behind the gateway. `reference` is the bank-side idempotency key (the trx-* id for a
 * debit, the rfd-* id for a refund): the same reference is never booked twice, so a retry or a
 * crash between the call and our commit cannot debit twice. A debit takes the account the charge
 * is paid from, a refund credits the account its charge was paid from. Called outside database
 * transactions (it may be slow).
 */
export interface BankGateway {
  debit(request: BankRequest): Promise<BankResult>;
  /**
   * `debit` for a batch of charges at once (the engine's claim), where the bank can take them
   * together: the answers in the requests' order, each what `debit` would have answered had the
   * requests come one after the other in that order.
   */
  debitMany?(requests: readonly BankRequest[]): Promise<BankResult[]>;
  refund(request: BankRequest): Promise<BankResult>;
  /**
   * Reverses what was booked under `reference`, inside the caller's transaction (the one that
   * records the outcome it must match): a debit cancelled the same day (the customer is whole
   * again and the debit no longer counts against the account's limits), a refund credit whose
   * refund is recorded as failed. Nothing booked, or already reversed: nothing to do.
   */
  reverseBooking(trx: Tx, request: { reference: string; at: Date }): Promise<void>;
  /**
   * A bank that takes work for a later file (the Zengin exchange) schedules it inside the
   * caller's transaction, the one that accepts the charge or holds its lock, and answers
   * `scheduled` with the file's date (YYYY-MM-DD) — or a refusal. Absent for a bank that books at once.
   */
  schedule?(trx: Tx, kind: "debit" | "refund", request: BankRequest): Promise<BankResult>;
  /**
   * A bank that debits on a date (the Zengin exchange): the debit date (YYYY-MM-DD JST) a debit of
   * an account at `bankCode` accepted at `at` would be given — or, without a bank, the date every
   * way the merchant may be debited gives; undefined when there is no one date to tell. Its
   * presence is how flows learn that the customer is debited on a date, not at approval
   * (flows/debit-timing.ts). Absent for a bank that books at once.
   */
  debitDateFor?(db: Tx, request: { merchantId: string; bankCode?: string; at: Date }): Promise<string | undefined>;
  /**
   * `schedule` for many debits of new charges at once (a subscription cycle's page, in its
   * transaction): the answers in the requests' order. The charges were created in this
   * transaction, so none is locked, settled or scheduled yet.
   */
  scheduleDebits?(trx: Tx, requests: readonly BankRequest[]): Promise<BankResult[]>;
}
