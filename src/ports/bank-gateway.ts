import type { ErrorType } from "../../gen/payments/v1/enums_pb.js";
import type { Tx } from "../storage/transactor.js";

/**
 * What the bank answered. A refusal names the contract's ErrorType (docs/reference/contract.md#errors); `retryable` for maintenance, with
 * `retryAfter` when the bank knows when its maintenance window ends.
 */
export type BankResult =
  | { ok: true }
  | { ok: false; errorType: ErrorType; message: string; retryable: boolean; retryAfter?: Date };

/**
 * The bank behind the gateway. `reference` is the bank-side idempotency key (the trx-* id for a
 * debit, the rfd-* id for a refund): the same reference is never booked twice, so a retry or a
 * crash between the call and our commit cannot debit twice. Called outside database
 * transactions (it may be slow).
 */
export interface BankGateway {
  debit(request: {
    merchantId: string;
    customerId: string;
    amount: number;
    reference: string;
    at: Date;
  }): Promise<BankResult>;
  refund(request: {
    merchantId: string;
    customerId: string;
    amount: number;
    reference: string;
    at: Date;
  }): Promise<BankResult>;
  /**
   * Reverses what was booked under `reference`, inside the caller's transaction (the one that
   * records the outcome it must match): a debit cancelled the same day (the customer is whole
   * again and the debit no longer counts against the account's limits), a refund credit whose
   * refund is recorded as failed. Nothing booked, or already reversed: nothing to do.
   */
  reverseBooking(trx: Tx, request: { reference: string; at: Date }): Promise<void>;
}
