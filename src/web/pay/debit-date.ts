import { DebitTiming } from "../../../gen/payments/v1/enums_pb.js";
import { session } from "./session.js";

/**
 * When the session says the account is debited (PaymentSession.debit_timing and debit_date, as the
 * server learned it from its bank connector; docs/guide/hosted-page.md#when-the-account-is-debited):
 * the steps word the bank note, the consent and the outcome from it, never from configuration.
 */
export function debitsOnDate(): boolean {
  return session().debitTiming === DebitTiming.ON_DEBIT_DATE;
}

/** The parameters of the date-and-amount messages, or undefined when there is no date to state. */
export function debitNoticeParams(): { date: string; amountValue: number } | undefined {
  const { debitDate, amount } = session();
  return debitsOnDate() && debitDate && amount > 0 ? { date: debitDate, amountValue: amount } : undefined;
}
