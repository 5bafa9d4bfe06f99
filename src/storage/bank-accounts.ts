import type { Transactor, Tx } from "./transactor.js";
import type { Kysely } from "kysely";
import type { ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { noDebits, withoutDebit, type DebitTotals } from "../domain/bank-profile.js";
import { reversalReference } from "../domain/ledger-reference.js";
import type {
  BankAccountTable,
  BankLedgerTable,
  BankSettingsTable,
  Database,
  DebitTotalColumns,
  LinkBankAccountTable,
} from "./schema.js";

/** Opens (or re-links) a simulated account for a customer. */
export async function upsertBankAccount(
  trx: Tx,
  account: Omit<
    BankAccountTable,
    "quota" | "under_maintenance" | "maintenance_until" | "reject" | "latency_ms" | DebitTotalColumns
  >,
): Promise<void> {
  await trx
    .insertInto("bank_accounts")
    .values({
      ...account,
      quota: 0,
      under_maintenance: 0,
      maintenance_until: null,
      reject: 0,
      latency_ms: 0,
      ...debitTotalsToRow(noDebits),
    })
    .onConflict((oc) =>
      oc.column("customer_id").doUpdateSet({
        bank_code: account.bank_code,
        branch_code: account.branch_code,
        account_number: account.account_number,
        account_holder: account.account_holder,
      }),
    )
    .execute();
}

export async function findBankAccount(
  db: Kysely<Database>,
  merchantId: string,
  customerId: string,
): Promise<BankAccountTable | undefined> {
  return db
    .selectFrom("bank_accounts")
    .selectAll()
    .where("customer_id", "=", customerId)
    .where("merchant_id", "=", merchantId)
    .executeTakeFirst();
}

export async function ledgerOf(db: Kysely<Database>, customerId: string): Promise<Omit<BankLedgerTable, "id">[]> {
  return db
    .selectFrom("bank_ledger")
    .select(["customer_id", "reference", "amount", "balance_after", "at"])
    .where("customer_id", "=", customerId)
    .orderBy("id")
    .execute();
}

/** The bank code of a customer's linked account, if any. */
export async function bankCodeOfCustomer(db: Kysely<Database>, customerId: string): Promise<string | undefined> {
  const account = await db
    .selectFrom("bank_accounts")
    .select("bank_code")
    .where("customer_id", "=", customerId)
    .executeTakeFirst();
  return account?.bank_code;
}

/** The sandbox settings of a customer's simulated account; fields left undefined are kept. */
export async function updateBankAccountSettings(
  trx: Tx,
  customerId: string,
  settings: Partial<
    Pick<BankAccountTable, "balance" | "quota" | "reject" | "latency_ms" | "under_maintenance" | "maintenance_until">
  >,
): Promise<void> {
  await trx.updateTable("bank_accounts").set(settings).where("customer_id", "=", customerId).execute();
}

/** A customer's simulated account, read outside any transaction. */
export async function findBankAccountOfCustomer(
  db: Kysely<Database>,
  customerId: string,
): Promise<BankAccountTable | undefined> {
  return db.selectFrom("bank_accounts").selectAll().where("customer_id", "=", customerId).executeTakeFirst();
}

/** Locks a customer's simulated account for a booking. */
export async function lockBankAccountOfCustomer(
  tx: Transactor,
  trx: Tx,
  customerId: string,
): Promise<BankAccountTable | undefined> {
  return tx
    .lockRows(trx.selectFrom("bank_accounts").selectAll().where("customer_id", "=", customerId))
    .executeTakeFirst();
}

/** Whether a booking under this reference is already in the ledger (the bank-side idempotency key). */
export async function isBooked(trx: Tx, reference: string): Promise<boolean> {
  const booked = await trx.selectFrom("bank_ledger").select("id").where("reference", "=", reference).executeTakeFirst();
  return booked !== undefined;
}

/** The merchant's bank-wide sandbox settings (the maintenance switch), if set. */
export async function findBankSettings(trx: Tx, merchantId: string): Promise<BankSettingsTable | undefined> {
  return trx.selectFrom("bank_settings").selectAll().where("merchant_id", "=", merchantId).executeTakeFirst();
}

/** The running debit totals kept on an account's row. */
export function debitTotalsOf(account: BankAccountTable): DebitTotals {
  return {
    dayStart: account.debits_day_start,
    today: Number(account.debits_today),
    monthStart: account.debits_month_start,
    thisMonth: Number(account.debits_this_month),
  };
}

function debitTotalsToRow(totals: DebitTotals): Pick<BankAccountTable, DebitTotalColumns> {
  return {
    debits_day_start: totals.dayStart,
    debits_today: totals.today,
    debits_month_start: totals.monthStart,
    debits_this_month: totals.thisMonth,
  };
}

/**
 * Books a debit (negative) or refund (positive): the new balance (and, when it changes what the
 * account was debited, its new running debit totals) and its ledger row, in the caller's transaction.
 */
export async function bookLedgerEntry(
  trx: Tx,
  entry: {
    customerId: string;
    reference: string;
    signedAmount: number;
    balanceAfter: number;
    at: string;
    debitTotalsAfter?: DebitTotals;
  },
): Promise<void> {
  await trx
    .updateTable("bank_accounts")
    .set({
      balance: entry.balanceAfter,
      ...(entry.debitTotalsAfter ? debitTotalsToRow(entry.debitTotalsAfter) : {}),
    })
    .where("customer_id", "=", entry.customerId)
    .execute();
  await trx
    .insertInto("bank_ledger")
    .values({
      customer_id: entry.customerId,
      reference: entry.reference,
      amount: entry.signedAmount,
      balance_after: entry.balanceAfter,
      at: entry.at,
    })
    .execute();
}

/**
 * Reverses the booking under `reference` in the caller's transaction: the opposite amount under
 * the reversal reference, the balance (and a debit's running totals) restored. Nothing booked, or
 * reversed already: nothing.
 */
export async function reverseLedgerEntry(tx: Transactor, trx: Tx, reference: string, at: string): Promise<void> {
  const booking = await trx.selectFrom("bank_ledger").selectAll().where("reference", "=", reference).executeTakeFirst();
  if (!booking) return;
  const account = await lockBankAccountOfCustomer(tx, trx, booking.customer_id);
  if (!account || (await isBooked(trx, reversalReference(reference)))) return;
  const amount = Number(booking.amount);
  await bookLedgerEntry(trx, {
    customerId: booking.customer_id,
    reference: reversalReference(reference),
    signedAmount: -amount,
    balanceAfter: Number(account.balance) - amount,
    at,
    // A reversed debit no longer counts toward the limits of its day and month.
    ...(amount < 0 ? { debitTotalsAfter: withoutDebit(debitTotalsOf(account), -amount, new Date(booking.at)) } : {}),
  });
}

/** A final bank answer as kept per reference: booked, or refused with its ErrorType. */
export type StoredBankAnswer = { ok: true } | { ok: false; errorType: ErrorType; message: string };

/** The answer given to a reference before, if any (a booking from before answers were kept counts as ok). */
export async function findBankAnswer(db: Kysely<Database>, reference: string): Promise<StoredBankAnswer | undefined> {
  const answer = await db.selectFrom("bank_answers").selectAll().where("reference", "=", reference).executeTakeFirst();
  if (answer) return answer.ok ? { ok: true } : { ok: false, errorType: answer.error_type, message: answer.message };
  const booked = await db.selectFrom("bank_ledger").select("id").where("reference", "=", reference).executeTakeFirst();
  return booked ? { ok: true } : undefined;
}

/** Keeps the final answer to a reference (a unique key: a concurrent second answer fails). */
export async function insertBankAnswer(
  trx: Tx,
  reference: string,
  answer: StoredBankAnswer,
  at: string,
): Promise<void> {
  await trx
    .insertInto("bank_answers")
    .values({
      reference,
      ok: answer.ok ? 1 : 0,
      error_type: answer.ok ? 0 : answer.errorType,
      message: answer.ok ? "" : answer.message,
      at,
    })
    .execute();
}

/** Holds the account given on a link's bank step (a repeated step replaces it). */
export async function savePendingBankAccount(trx: Tx, account: LinkBankAccountTable): Promise<void> {
  const { link_id, ...details } = account;
  await trx
    .insertInto("link_bank_accounts")
    .values(account)
    .onConflict((oc) => oc.column("link_id").doUpdateSet(details))
    .execute();
}

export async function findPendingBankAccount(trx: Tx, linkId: string): Promise<LinkBankAccountTable | undefined> {
  return trx.selectFrom("link_bank_accounts").selectAll().where("link_id", "=", linkId).executeTakeFirst();
}
