import type { BankAccountDetails } from "./bank-account.js";
import type { DebitTotals } from "./bank-profile.js";

/**
 * An approved account as the simulated bank keeps it (docs/guide/simulated-bank.md): its details
 * unsealed (they never leave the service unmasked), its balance and the sandbox's settings for
 * it, and the running totals of its debits that its limits are checked against.
 */
export interface SimulatedBankAccount {
  /** bac-* */
  readonly id: string;
  readonly customerId: string;
  readonly merchantId: string;
  readonly details: BankAccountDetails;
  readonly balance: number;
  readonly quota: number;
  readonly underMaintenance: boolean;
  readonly maintenanceUntil: Date | null;
  /** Refuses every debit (a closed or frozen account). */
  readonly reject: boolean;
  readonly latencyMs: number;
  readonly debitTotals: DebitTotals;
  readonly createdAt: Date;
}

/** One booking on a simulated account, as the sandbox shows it. */
export interface LedgerEntry {
  readonly customerId: string;
  /** trx-* or rfd-* (or its reversal). */
  readonly reference: string;
  /** Negative for a debit, positive for a refund. */
  readonly amount: number;
  readonly balanceAfter: number;
  readonly at: Date;
}
