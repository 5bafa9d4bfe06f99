import { sql } from "kysely";
import type { BankAccountTable, ZenginConsignorTable, ZenginFileTable, ZenginItemTable } from "./schema.js";
import type { Transactor, Tx } from "./transactor.js";

/** The two queues of items on their way through a file: debits (trx-*) and transfers (rfd-*). */
export type ZenginItemKind = "zengin_debits" | "zengin_transfers";

export async function saveConsignor(trx: Tx, row: ZenginConsignorTable): Promise<void> {
  const { merchant_id: _, ...changes } = row;
  await trx
    .insertInto("zengin_consignors")
    .values(row)
    .onConflict((oc) => oc.column("merchant_id").doUpdateSet(changes))
    .execute();
}

export async function findConsignor(db: Tx, merchantId: string): Promise<ZenginConsignorTable | undefined> {
  return db.selectFrom("zengin_consignors").selectAll().where("merchant_id", "=", merchantId).executeTakeFirst();
}

export async function findConsignorByCode(db: Tx, code: string): Promise<ZenginConsignorTable | undefined> {
  return db.selectFrom("zengin_consignors").selectAll().where("code", "=", code).executeTakeFirst();
}

/** Records an item once: the reference is the bank-side idempotency key. */
export async function insertItem(trx: Tx, table: ZenginItemKind, row: ZenginItemTable): Promise<void> {
  await trx
    .insertInto(table)
    .values(row)
    .onConflict((oc) => oc.column("reference").doNothing())
    .execute();
}

export async function findItem(db: Tx, table: ZenginItemKind, reference: string): Promise<ZenginItemTable | undefined> {
  return db.selectFrom(table).selectAll().where("reference", "=", reference).executeTakeFirst();
}

export async function lockItem(
  tx: Transactor,
  trx: Tx,
  table: ZenginItemKind,
  reference: string,
): Promise<ZenginItemTable | undefined> {
  return tx.lockRows(trx.selectFrom(table).selectAll().where("reference", "=", reference)).executeTakeFirst();
}

/** True when the item was still waiting for its file (and is now left out of it). */
export async function cancelItem(trx: Tx, table: ZenginItemKind, reference: string, now: string): Promise<boolean> {
  const result = await trx
    .updateTable(table)
    .set({ state: "cancelled", updated_at: now })
    .where("reference", "=", reference)
    .where("state", "=", "scheduled")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Merchants and dates with items waiting for a file. */
export async function scheduledGroups(db: Tx, table: ZenginItemKind): Promise<{ merchant_id: string; date: string }[]> {
  const rows = await db
    .selectFrom(table)
    .select(["merchant_id", "date"])
    .where("state", "=", "scheduled")
    .distinct()
    .execute();
  return rows.map((row) => ({ merchant_id: row.merchant_id, date: row.date ?? "" }));
}

/**
 * Puts every item still scheduled for the merchant and date into the file (one UPDATE: an item
 * cancelled meanwhile stays out) and numbers them in a fixed order (creation time, reference).
 * Inside the transaction that creates the file.
 */
export async function fileItems(
  trx: Tx,
  table: ZenginItemKind,
  group: { merchantId: string; date: string; fileId: string; now: string },
  customerNumberOf: (position: number) => string,
): Promise<ZenginItemTable[]> {
  await trx
    .updateTable(table)
    .set({ state: "filed", file_id: group.fileId, updated_at: group.now })
    .where("state", "=", "scheduled")
    .where("merchant_id", "=", group.merchantId)
    .where("date", "=", group.date)
    .execute();
  const items = await trx
    .selectFrom(table)
    .selectAll()
    .where("file_id", "=", group.fileId)
    .orderBy("created_at")
    .orderBy("reference")
    .execute();
  const numbered = items.map((item, index) => ({ ...item, customer_number: customerNumberOf(index + 1) }));
  for (const item of numbered)
    await trx
      .updateTable(table)
      .set({ customer_number: item.customer_number })
      .where("reference", "=", item.reference)
      .execute();
  return numbered;
}

/** Items scheduled for a date whose file is already written move to a later date. */
export async function rescheduleItems(
  trx: Tx,
  table: ZenginItemKind,
  group: { merchantId: string; from: string; to: string; now: string },
): Promise<void> {
  await trx
    .updateTable(table)
    .set({ date: group.to, updated_at: group.now })
    .where("state", "=", "scheduled")
    .where("merchant_id", "=", group.merchantId)
    .where("date", "=", group.from)
    .execute();
}

export async function itemsOfFile(db: Tx, table: ZenginItemKind, fileId: string): Promise<ZenginItemTable[]> {
  return db.selectFrom(table).selectAll().where("file_id", "=", fileId).orderBy("customer_number").execute();
}

export async function answerItem(trx: Tx, table: ZenginItemKind, reference: string, resultCode: number, now: string) {
  await trx
    .updateTable(table)
    .set({ state: "answered", result_code: resultCode, updated_at: now })
    .where("reference", "=", reference)
    .execute();
}

export async function insertFile(trx: Tx, row: ZenginFileTable): Promise<boolean> {
  const inserted = await trx
    .insertInto("zengin_files")
    .values(row)
    .onConflict((oc) => oc.column("id").doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function findFile(db: Tx, id: string): Promise<ZenginFileTable | undefined> {
  return db.selectFrom("zengin_files").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function lockFile(tx: Transactor, trx: Tx, id: string): Promise<ZenginFileTable | undefined> {
  return tx.lockRows(trx.selectFrom("zengin_files").selectAll().where("id", "=", id)).executeTakeFirst();
}

export async function filesInState(db: Tx, direction: "in" | "out", state: string): Promise<ZenginFileTable[]> {
  return db
    .selectFrom("zengin_files")
    .selectAll()
    .where("direction", "=", direction)
    .where("state", "=", state)
    .orderBy("created_at")
    .execute();
}

/** The received file with these bytes, if one was already imported or quarantined. */
export async function findIncomingBySha(db: Tx, sha256: string): Promise<ZenginFileTable | undefined> {
  return db
    .selectFrom("zengin_files")
    .selectAll()
    .where("direction", "=", "in")
    .where("sha256", "=", sha256)
    .executeTakeFirst();
}

/** The file we sent for a consignor's merchant, kind and date (MMDD), newest first. */
export async function findSentFile(
  db: Tx,
  merchantId: string,
  kind: string,
  monthDay: string,
): Promise<ZenginFileTable | undefined> {
  return db
    .selectFrom("zengin_files")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .where("kind", "=", kind)
    .where("direction", "=", "out")
    .where("date", "like", `%-${monthDay.slice(0, 2)}-${monthDay.slice(2)}`)
    .where("state", "in", ["sent", "answered"])
    .orderBy("date", "desc")
    .executeTakeFirst();
}

export async function updateFile(trx: Tx, id: string, changes: Partial<ZenginFileTable>): Promise<void> {
  await trx.updateTable("zengin_files").set(changes).where("id", "=", id).execute();
}

/** Files for the operator and the dashboard, newest first. */
export async function listFiles(db: Tx, merchantId?: string): Promise<ZenginFileTable[]> {
  let query = db.selectFrom("zengin_files").selectAll().orderBy("created_at", "desc").orderBy("id").limit(500);
  if (merchantId) query = query.where("merchant_id", "=", merchantId);
  return query.execute();
}

/** Quarantined files, and sent files whose results are overdue at `now` (metrics, dashboard). */
export async function zenginAlerts(db: Tx, now: Date): Promise<{ quarantined: number; overdue: number }> {
  const row = await db
    .selectFrom("zengin_files")
    .select([
      sql<number>`sum(case when state = 'quarantined' then 1 else 0 end)`.as("quarantined"),
      sql<number>`sum(case when state = 'sent' and due_at < ${now.toISOString()} then 1 else 0 end)`.as("overdue"),
    ])
    .executeTakeFirstOrThrow();
  return { quarantined: Number(row.quarantined ?? 0), overdue: Number(row.overdue ?? 0) };
}

export async function findSentFileByName(db: Tx, name: string): Promise<ZenginFileTable | undefined> {
  return db
    .selectFrom("zengin_files")
    .selectAll()
    .where("direction", "=", "out")
    .where("name", "=", name)
    .executeTakeFirst();
}

/**
 * The simulated bank's booking of one file record: the account found by its numbers, the balance
 * moved and a ledger row under `reference` (booked once), or the Zengin result code of a refusal.
 */
export async function bookSimulatedTransfer(
  tx: Transactor,
  request: {
    merchantId: string;
    bankCode: string;
    branchCode: string;
    accountNumber: string;
    signedAmount: number;
    reference: string;
    at: string;
    decide: (account: BankAccountTable) => number;
  },
): Promise<number> {
  return tx.write(async (trx) => {
    const account = await tx
      .lockRows(
        trx
          .selectFrom("bank_accounts")
          .selectAll()
          .where("merchant_id", "=", request.merchantId)
          .where("bank_code", "=", request.bankCode)
          .where("branch_code", "=", request.branchCode)
          .where("account_number", "=", request.accountNumber),
      )
      .executeTakeFirst();
    if (!account) return 2;
    const booked = await trx
      .selectFrom("bank_ledger")
      .select("id")
      .where("reference", "=", request.reference)
      .executeTakeFirst();
    if (booked) return 0;
    const code = request.decide(account);
    if (code !== 0) return code;
    const balanceAfter = Number(account.balance) + request.signedAmount;
    await trx
      .updateTable("bank_accounts")
      .set({ balance: balanceAfter })
      .where("customer_id", "=", account.customer_id)
      .execute();
    await trx
      .insertInto("bank_ledger")
      .values({
        customer_id: account.customer_id,
        reference: request.reference,
        amount: request.signedAmount,
        balance_after: balanceAfter,
        at: request.at,
      })
      .execute();
    return 0;
  });
}

/** True when the merchant already asked to debit this account (so the next debit is not 新規). */
export async function hasEarlierDebit(
  db: Tx,
  merchantId: string,
  account: { bank_code: string; branch_code: string; account_number: string },
): Promise<boolean> {
  const row = await db
    .selectFrom("zengin_debits")
    .select("reference")
    .where("merchant_id", "=", merchantId)
    .where("bank_code", "=", account.bank_code)
    .where("branch_code", "=", account.branch_code)
    .where("account_number", "=", account.account_number.padStart(7, "0"))
    .where("state", "!=", "cancelled")
    .executeTakeFirst();
  return row !== undefined;
}
