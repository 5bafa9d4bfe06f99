/**
 * The bank ledger's references: a booking is keyed by the charge's trx-* or the refund's rfd-*,
 * and its reversal (a cancelled debit, the credit of a refund recorded as failed) by the same
 * reference with this suffix.
 */
const reversalSuffix = "/reversal";

export function reversalReference(reference: string): string {
  return reference + reversalSuffix;
}
