import { runCompiled, slot } from "./compiled-once.js";
import type { Transactor, Tx } from "./transactor.js";
import { insertRows } from "./bulk-insert.js";
import type { Kysely } from "kysely";
import { ContractStatus, type ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { accountIdentity, parseAccount, serialiseAccount, type BankAccountDetails } from "../domain/bank-account.js";
import { newId } from "../domain/ids.js";
import type { LedgerEntry, SimulatedBankAccount } from "../domain/simulated-bank-account.js";
import { keyedHash, keyedHashes, seal, unseal } from "./sealed.js";
import { noDebits, withoutDebit, type DebitTotals } from "../domain/bank-profile.js";
import { reversalReference } from "../domain/ledger-reference.js";
import type { BankAccountTable, BankLedgerTable, Database, DebitTotalColumns } from "./schema.js";

/** An approved account as the simulated bank keeps it (domain/simulated-bank-account.ts). */
export type BankAccountRecord = SimulatedBankAccount;

function fromRow(row: BankAccountTable): BankAccountRecord {
  return {
    id: row.id,
    customerId: row.customer_id,
    merchantId: row.merchant_id,
    details: parseAccount(unseal(row.account_sealed)),
    balance: Number(row.balance),
    quota: Number(row.quota),
    underMaintenance: row.under_maintenance === 1,
    maintenanceUntil: row.maintenance_until ? new Date(row.maintenance_until) : null,
    reject: row.reject === 1,
    latencyMs: row.latency_ms,
    debitTotals: debitTotalsOf(row),
    createdAt: new Date(row.created_at),
  };
}

function ledgerEntryOf(
  row: Pick<BankLedgerTable, "customer_id" | "reference" | "amount" | "balance_after" | "at">,
): LedgerEntry {
  return {
    customerId: row.customer_id,
    reference: row.reference,
    amount: Number(row.amount),
    balanceAfter: Number(row.balance_after),
    at: new Date(row.at),
  };
}

/**
 * The customer's account with these details, opened (sealed, with `balance`) if the customer has
 * not approved it before: the same account approved again is the same row (its balance, settings
 * and limits), another account is another row. With `adoptUnused` (an approval), an account the
 * sandbox opened for the customer that nothing uses yet (ConfigureBankAccount before the first
 * approval) becomes this account, keeping its balance and settings. Answers its id.
 */
export async function openBankAccount(
  trx: Tx,
  account: {
    merchantId: string;
    customerId: string;
    details: BankAccountDetails;
    balance: number;
    now: Date;
    adoptUnused?: boolean;
  },
): Promise<string> {
  const identity = accountIdentity(account.details);
  const ofCustomer = trx
    .selectFrom("bank_accounts")
    .select("id")
    .where("merchant_id", "=", account.merchantId)
    .where("customer_id", "=", account.customerId)
    .orderBy("created_at");
  const known = await ofCustomer.where("account_key", "in", keyedHashes(identity)).executeTakeFirst();
  if (known) return known.id;
  const sealed = { account_sealed: seal(serialiseAccount(account.details)), account_key: keyedHash(identity) };
  const unused =
    account.adoptUnused &&
    (await ofCustomer
      .where(({ exists, not, selectFrom }) =>
        not(exists(selectFrom("charges").select("id").whereRef("charges.bank_account_id", "=", "bank_accounts.id"))),
      )
      .where(({ exists, not, selectFrom }) =>
        not(
          exists(selectFrom("contracts").select("id").whereRef("contracts.bank_account_id", "=", "bank_accounts.id")),
        ),
      )
      .executeTakeFirst());
  if (unused) {
    await trx.updateTable("bank_accounts").set(sealed).where("id", "=", unused.id).execute();
    return unused.id;
  }
  const id = newId("bac");
  await trx
    .insertInto("bank_accounts")
    .values({
      id,
      customer_id: account.customerId,
      merchant_id: account.merchantId,
      ...sealed,
      balance: account.balance,
      quota: 0,
      under_maintenance: 0,
      maintenance_until: null,
      reject: 0,
      latency_ms: 0,
      created_at: account.now.toISOString(),
      ...debitTotalsToRow(noDebits),
    })
    .execute();
  return id;
}

export async function findBankAccountById(db: Kysely<Database>, id: string): Promise<BankAccountRecord | undefined> {
  const row = await db.selectFrom("bank_accounts").selectAll().where("id", "=", id).executeTakeFirst();
  return row && fromRow(row);
}

/**
 * An account's simulated latency, 0 when there is no such account: the one column the bank reads
 * before its booking transaction, without the sealed details `fromRow` would decrypt.
 */
export async function bankAccountLatencyMs(db: Kysely<Database>, id: string): Promise<number> {
  const [row] = await runCompiled(
    db,
    "bank account latency",
    () => db.selectFrom("bank_accounts").select("latency_ms").where("id", "=", slot("id")),
    { id },
  );
  return row?.latency_ms ?? 0;
}

/** An account's details as opened from its row, with the sealed text they came from. */
export interface OpenedAccount {
  readonly details: BankAccountDetails;
  /** `account_sealed` as stored, and what it opens to: a copy of the same details may reuse it. */
  readonly sealed: string;
  readonly plain: string;
}

/** Accounts' details by id (a subscription cycle's page), in chunks: the columns it reads, no more. */
export async function findAccountDetailsByIds(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<Map<string, OpenedAccount>> {
  const found = new Map<string, OpenedAccount>();
  const unique = [...new Set(ids)].filter(Boolean);
  for (let start = 0; start < unique.length; start += 500) {
    const rows = await db
      .selectFrom("bank_accounts")
      .select(["id", "account_sealed"])
      .where("id", "in", unique.slice(start, start + 500))
      .execute();
    for (const row of rows) {
      const plain = unseal(row.account_sealed);
      found.set(row.id, { details: parseAccount(plain), sealed: row.account_sealed, plain });
    }
  }
  return found;
}

/** The customer's accounts, oldest first. */
export async function findBankAccountsOfCustomer(
  db: Kysely<Database>,
  merchantId: string,
  customerId: string,
): Promise<BankAccountRecord[]> {
  const rows = await db
    .selectFrom("bank_accounts")
    .selectAll()
    .where("customer_id", "=", customerId)
    .where("merchant_id", "=", merchantId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map(fromRow);
}

/** The customer's account that matters now: its active contract's, else the one approved last. */
export async function findCurrentBankAccount(
  db: Kysely<Database>,
  merchantId: string,
  customerId: string,
): Promise<BankAccountRecord | undefined> {
  const contract = await db
    .selectFrom("contracts")
    .select("bank_account_id")
    .where("merchant_id", "=", merchantId)
    .where("customer_id", "=", customerId)
    .where("status", "=", ContractStatus.ACTIVATED)
    .where("bank_account_id", "is not", null)
    .orderBy("created_at", "desc")
    .executeTakeFirst();
  const active = contract?.bank_account_id ? await findBankAccountById(db, contract.bank_account_id) : undefined;
  return active ?? (await findBankAccountsOfCustomer(db, merchantId, customerId)).at(-1);
}

/** What the customer's accounts booked, in order (every account of the customer). */
export async function ledgerOf(db: Kysely<Database>, customerId: string): Promise<LedgerEntry[]> {
  const rows = await db
    .selectFrom("bank_ledger")
    .select(["customer_id", "reference", "amount", "balance_after", "at"])
    .where("customer_id", "=", customerId)
    .orderBy("id")
    .execute();
  return rows.map(ledgerEntryOf);
}

/** What one account booked, in order. */
export async function ledgerOfAccount(db: Kysely<Database>, accountId: string): Promise<LedgerEntry[]> {
  const rows = await db
    .selectFrom("bank_ledger")
    .select(["customer_id", "reference", "amount", "balance_after", "at"])
    .where("account_id", "=", accountId)
    .orderBy("id")
    .execute();
  return rows.map(ledgerEntryOf);
}

/** The bank code of an account, if it exists. */
export async function bankCodeOfAccount(db: Kysely<Database>, accountId: string): Promise<string | undefined> {
  return (await findBankAccountById(db, accountId))?.details.bankCode;
}

/** The sandbox settings of every account of a customer; fields left undefined are kept. */
export async function updateBankAccountSettings(
  trx: Tx,
  customerId: string,
  settings: Partial<
    Pick<BankAccountTable, "balance" | "quota" | "reject" | "latency_ms" | "under_maintenance" | "maintenance_until">
  >,
): Promise<void> {
  await trx.updateTable("bank_accounts").set(settings).where("customer_id", "=", customerId).execute();
}

/** Sets one account's balance (sandbox). */
export async function setBankAccountBalance(trx: Tx, accountId: string, balance: number): Promise<void> {
  await trx.updateTable("bank_accounts").set({ balance }).where("id", "=", accountId).execute();
}

/** Locks an account for a booking. */
export async function lockBankAccount(
  tx: Transactor,
  trx: Tx,
  accountId: string,
): Promise<BankAccountRecord | undefined> {
  const [row] = await runCompiled(
    trx,
    "bank account, locked",
    () => tx.lockRows(trx.selectFrom("bank_accounts").selectAll().where("id", "=", slot("id"))),
    { id: accountId },
  );
  return row && fromRow(row);
}

/** Locks the merchant's account with these numbers (a Zengin file's record names an account by them). */
export async function lockBankAccountByNumbers(
  tx: Transactor,
  trx: Tx,
  merchantId: string,
  numbers: { bankCode: string; branchCode: string; accountNumber: string },
): Promise<BankAccountRecord | undefined> {
  const row = await tx
    .lockRows(
      trx
        .selectFrom("bank_accounts")
        .selectAll()
        .where("merchant_id", "=", merchantId)
        .where("account_key", "in", keyedHashes(accountIdentity(numbers)))
        .orderBy("created_at"),
    )
    .executeTakeFirst();
  return row && fromRow(row);
}

/** Whether a booking under this reference is already in the ledger (the bank-side idempotency key). */
export async function isBooked(trx: Tx, reference: string): Promise<boolean> {
  const booked = await trx.selectFrom("bank_ledger").select("id").where("reference", "=", reference).executeTakeFirst();
  return booked !== undefined;
}

/** The running debit totals kept on an account's row. */
function debitTotalsOf(account: Pick<BankAccountTable, DebitTotalColumns>): DebitTotals {
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
    accountId: string;
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
    .where("id", "=", entry.accountId)
    .execute();
  await insertRows(trx, "bank_ledger", [
    {
      customer_id: entry.customerId,
      account_id: entry.accountId,
      reference: entry.reference,
      amount: entry.signedAmount,
      balance_after: entry.balanceAfter,
      at: entry.at,
    },
  ]);
}

/**
 * Reverses the booking under `reference` in the caller's transaction: the opposite amount under
 * the reversal reference, the balance (and a debit's running totals) restored. Nothing booked, or
 * reversed already: nothing.
 */
export async function reverseLedgerEntry(tx: Transactor, trx: Tx, reference: string, at: string): Promise<void> {
  const booking = await trx.selectFrom("bank_ledger").selectAll().where("reference", "=", reference).executeTakeFirst();
  // A booking without an account (older than migration 0016) has no balance to restore.
  if (!booking || booking.account_id === null) return;
  const account = await lockBankAccount(tx, trx, booking.account_id);
  if (!account || (await isBooked(trx, reversalReference(reference)))) return;
  const amount = Number(booking.amount);
  await bookLedgerEntry(trx, {
    accountId: account.id,
    customerId: booking.customer_id,
    reference: reversalReference(reference),
    signedAmount: -amount,
    balanceAfter: Number(account.balance) - amount,
    at,
    // A reversed debit no longer counts toward the limits of its day and month.
    ...(amount < 0 ? { debitTotalsAfter: withoutDebit(account.debitTotals, -amount, new Date(booking.at)) } : {}),
  });
}

/** A final bank answer as kept per reference: booked, or refused with its ErrorType. */
export type StoredBankAnswer = { ok: true } | { ok: false; errorType: ErrorType; message: string };

/** The answer given to a reference before, if any (a booking from before answers were kept counts as ok). */
export async function findBankAnswer(db: Kysely<Database>, reference: string): Promise<StoredBankAnswer | undefined> {
  const [answer] = await runCompiled(
    db,
    "bank answer",
    () => db.selectFrom("bank_answers").selectAll().where("reference", "=", slot("reference")),
    { reference },
  );
  if (answer) return answer.ok ? { ok: true } : { ok: false, errorType: answer.error_type, message: answer.message };
  const [booked] = await runCompiled(
    db,
    "ledger booking by reference",
    () => db.selectFrom("bank_ledger").select("id").where("reference", "=", slot("reference")),
    { reference },
  );
  return booked ? { ok: true } : undefined;
}

/** Keeps the final answer to a reference (a unique key: a concurrent second answer fails). */
export async function insertBankAnswer(
  trx: Tx,
  reference: string,
  answer: StoredBankAnswer,
  at: string,
): Promise<void> {
  await insertRows(trx, "bank_answers", [
    {
      reference,
      ok: answer.ok ? 1 : 0,
      error_type: answer.ok ? 0 : answer.errorType,
      message: answer.ok ? "" : answer.message,
      at,
    },
  ]);
}

/** Holds the account given on a link's bank step, sealed (a repeated step replaces it). */
export async function savePendingBankAccount(
  trx: Tx,
  account: { linkId: string; details: BankAccountDetails; linkedAt: Date },
): Promise<void> {
  const row = {
    link_id: account.linkId,
    account_sealed: seal(serialiseAccount(account.details)),
    linked_at: account.linkedAt.toISOString(),
  };
  await trx
    .insertInto("link_bank_accounts")
    .values(row)
    .onConflict((oc) =>
      oc.column("link_id").doUpdateSet({ account_sealed: row.account_sealed, linked_at: row.linked_at }),
    )
    .execute();
}

/** The account given on a link's bank step, unsealed, if any. */
export async function findPendingBankAccount(trx: Tx, linkId: string): Promise<BankAccountDetails | undefined> {
  const row = await trx
    .selectFrom("link_bank_accounts")
    .select("account_sealed")
    .where("link_id", "=", linkId)
    .executeTakeFirst();
  return row && parseAccount(unseal(row.account_sealed));
}
