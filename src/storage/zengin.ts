import { insertRows } from "./bulk-insert.js";
import { sql } from "kysely";
import { accountIdentity, type BankAccountDetails } from "../domain/bank-account.js";
import { keyedHashes } from "./sealed.js";
import { bookLedgerEntry, isBooked, lockBankAccountByNumbers, type BankAccountRecord } from "./bank-accounts.js";
import type { Transactor, Tx } from "./transactor.js";
import type { AsyncRequestRecord } from "../domain/async-request.js";
import type { ChargeRecord } from "../domain/records.js";
import type {
  ConsignorSettings,
  ZenginFileDirection,
  ZenginFileKind,
  ZenginFileRecord,
  ZenginFileState,
  ZenginFileTotals,
  ZenginItemKind,
  ZenginItemRecord,
  ZenginItemState,
} from "../domain/zengin-records.js";
import { asyncRequestFromRow, chargeFromRow } from "./records.js";
import {
  consignorFromRow,
  consignorToRow,
  fileChangesToRow,
  fileFromRow,
  fileToRow,
  itemFromRow,
  itemToRow,
  type OpenedItemAccount,
} from "./zengin-rows.js";
import { limits } from "../domain/limits.js";

/** The Zengin exchange's storage: it takes and hands out the records of domain/zengin-records.ts. */

export { sealedItemAccount } from "./zengin-rows.js";

/** Saves a contract under its 委託者コード (the caller checked the code is not another merchant's). */
export async function saveContract(trx: Tx, contract: ConsignorSettings): Promise<void> {
  const row = consignorToRow(contract);
  const { code: _, created_at: __, ...changes } = row;
  await trx
    .insertInto("zengin_contracts")
    .values(row)
    .onConflict((oc) => oc.column("code").doUpdateSet(changes))
    .execute();
}

/** Removes a contract; true when it was there. Its files stay, recorded with the contract they were written for. */
export async function removeContract(trx: Tx, merchantId: string, code: string): Promise<boolean> {
  const result = await trx
    .deleteFrom("zengin_contracts")
    .where("merchant_id", "=", merchantId)
    .where("code", "=", code)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** A merchant's contracts, by 委託者コード. */
export async function listContracts(db: Tx, merchantId: string): Promise<ConsignorSettings[]> {
  const rows = await db
    .selectFrom("zengin_contracts")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .orderBy("code")
    .execute();
  return rows.map(consignorFromRow);
}

/** The contract with this 委託者コード (a 種別 91 file's header), whichever merchant holds it. */
export async function findContract(db: Tx, code: string): Promise<ConsignorSettings | undefined> {
  const row = await db.selectFrom("zengin_contracts").selectAll().where("code", "=", code).executeTakeFirst();
  return row && consignorFromRow(row);
}

/** The contract with this 振込依頼人コード (a 種別 21 file's header). */
export async function findContractByTransferCode(db: Tx, code: string): Promise<ConsignorSettings | undefined> {
  const row = await db.selectFrom("zengin_contracts").selectAll().where("transfer_code", "=", code).executeTakeFirst();
  return row && consignorFromRow(row);
}

/** The keys an account may be stored under in `account_key` (the current SECRETS_KEY's and the previous ones'). */
export const itemAccountKeys = (numbers: Pick<BankAccountDetails, "bankCode" | "branchCode" | "accountNumber">) =>
  keyedHashes(accountIdentity(numbers));

/** Records an item once: the reference is the bank-side idempotency key. */
export async function insertItem(trx: Tx, table: ZenginItemKind, item: ZenginItemRecord): Promise<void> {
  await trx
    .insertInto(table)
    .values(itemToRow(item))
    .onConflict((oc) => oc.column("reference").doNothing())
    .execute();
}

/** `insertItem` for many items at once (a subscription cycle's debits), in chunks, with what is known of their accounts. */
export async function insertItems(
  trx: Tx,
  table: ZenginItemKind,
  items: readonly { item: ZenginItemRecord; opened?: OpenedItemAccount }[],
): Promise<void> {
  await insertRows(
    trx,
    table,
    items.map(({ item, opened }) => itemToRow(item, opened)),
    { ignoreConflictOn: ["reference"] },
  );
}

/** The item recorded under this reference (the bank was already asked): its state and its file's date. */
export async function findItem(
  db: Tx,
  table: ZenginItemKind,
  reference: string,
): Promise<{ state: ZenginItemState; date: string | null } | undefined> {
  const row = await db
    .selectFrom(table)
    .select(["state", "date"])
    .where("reference", "=", reference)
    .executeTakeFirst();
  return row && { state: row.state as ZenginItemState, date: row.date };
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

/** True when debits or transfers wait for the contract's next file. */
export async function hasScheduledItems(db: Tx, contractCode: string): Promise<boolean> {
  for (const table of ["zengin_debits", "zengin_transfers"] as const) {
    const row = await db
      .selectFrom(table)
      .select("reference")
      .where("state", "=", "scheduled")
      .where("contract_code", "=", contractCode)
      .executeTakeFirst();
    if (row) return true;
  }
  return false;
}

/** Debits and transfers waiting for a contract's next file follow it to its new 委託者コード. */
export async function moveScheduledItems(trx: Tx, from: string, to: string): Promise<void> {
  for (const table of ["zengin_debits", "zengin_transfers"] as const)
    await trx
      .updateTable(table)
      .set({ contract_code: to })
      .where("state", "=", "scheduled")
      .where("contract_code", "=", from)
      .execute();
}

/** Merchants, contracts and dates with items waiting for a file. */
export async function scheduledGroups(
  db: Tx,
  table: ZenginItemKind,
): Promise<{ merchantId: string; contractCode: string; date: string }[]> {
  const rows = await db
    .selectFrom(table)
    .select(["merchant_id", "contract_code", "date"])
    .where("state", "=", "scheduled")
    .distinct()
    .execute();
  return rows.map((row) => ({ merchantId: row.merchant_id, contractCode: row.contract_code, date: row.date ?? "" }));
}

/**
 * Puts the items still scheduled for the merchant's contract and date into the file (an item
 * cancelled meanwhile stays out) and numbers them in a fixed order (creation time, reference),
 * in one UPDATE: each item's row and its index entries are written once. A file holds what its
 * trailer can count (`caps`: 999,999 records, 999,999,999,999 yen); the items after that stay
 * scheduled, and the next turn of the cycle moves them to the next debit date, as it moves an
 * item scheduled after its file was written (flows/zengin-request-files.ts). Inside the
 * transaction that creates the file.
 */
export async function fileItems(
  trx: Tx,
  table: ZenginItemKind,
  group: { merchantId: string; contractCode: string; date: string; fileId: string; now: string },
  caps = { records: limits.zenginFileRecordsMax, amountYen: limits.zenginFileAmountYenMax },
): Promise<void> {
  // 顧客番号: the date (YYYYMMDD) and the position, 12 digits.
  const zeros = "000000000000";
  await sql`
    update ${sql.table(table)} set state = 'filed', file_id = ${group.fileId}, updated_at = ${group.now},
      customer_number = ${group.date.replaceAll("-", "")} || substr(${zeros} || numbered.pos, length(${zeros} || numbered.pos) - 11, 12)
    from (
      select ref, pos from (
        select reference as ref,
          row_number() over (order by created_at, reference) as pos,
          sum(amount) over (order by created_at, reference rows between unbounded preceding and current row) as running
        from ${sql.table(table)}
        where state = 'scheduled' and merchant_id = ${group.merchantId} and date = ${group.date}
          and contract_code = ${group.contractCode}
      ) as ordered
      where pos <= ${caps.records} and running <= ${caps.amountYen}
    ) as numbered
    -- Checked on the row again: PostgreSQL re-reads a row a concurrent cancel changed (a gap in
    -- the numbers then, never a cancelled item in the file).
    where ${sql.table(table)}.reference = numbered.ref and ${sql.table(table)}.state = 'scheduled'`.execute(trx);
}

/** The items of a file with these customer numbers (a batch of a result file's records), by the (file_id, customer_number) index. */
export async function itemsByCustomerNumber(
  db: Tx,
  table: ZenginItemKind,
  fileId: string,
  customerNumbers: readonly string[],
): Promise<{ reference: string; customerNumber: string; amount: number; accountKey: string }[]> {
  if (customerNumbers.length === 0) return [];
  const rows = await db
    .selectFrom(table)
    .select(["reference", "customer_number", "amount", "account_key"])
    .where("file_id", "=", fileId)
    .where("customer_number", "in", customerNumbers)
    .execute();
  return rows.map((row) => ({
    reference: row.reference,
    customerNumber: row.customer_number ?? "",
    amount: Number(row.amount),
    accountKey: row.account_key,
  }));
}

/** A page of a file's items in customer-number order, after `after` (keyset: the file is written page by page). */
export async function itemsOfFilePage(
  db: Tx,
  table: ZenginItemKind,
  fileId: string,
  after: string,
  limit: number,
): Promise<ZenginItemRecord[]> {
  const rows = await db
    .selectFrom(table)
    .selectAll()
    .where("file_id", "=", fileId)
    .where("customer_number", ">", after)
    .orderBy("customer_number")
    .limit(limit)
    .execute();
  return rows.map(itemFromRow);
}

/**
 * A page of a debit file's items answered 0 (debited), in customer-number order after `after`: the
 * debits a failures-only result does not list (docs/guide/direct-debit-files.md#result-styles).
 */
export async function debitedItemsPage(
  db: Tx,
  fileId: string,
  after: string,
  limit: number,
): Promise<{ customerNumber: string; amount: number }[]> {
  const rows = await db
    .selectFrom("zengin_debits")
    .select(["customer_number", "amount"])
    .where("file_id", "=", fileId)
    .where("customer_number", ">", after)
    .where("result_code", "=", 0)
    .orderBy("customer_number")
    .limit(limit)
    .execute();
  return rows.map((row) => ({ customerNumber: row.customer_number ?? "", amount: Number(row.amount) }));
}

/** The charges of a debit file with these customer numbers, and their async requests (the file row is locked by the caller). */
export async function chargesOfFile(
  trx: Tx,
  fileId: string,
  customerNumbers: readonly string[],
): Promise<{ charge: ChargeRecord; customerNumber: string; request: AsyncRequestRecord | undefined }[]> {
  if (customerNumbers.length === 0) return [];
  const rows = await trx
    .selectFrom("charges")
    .innerJoin("zengin_debits as d", "d.reference", "charges.id")
    .selectAll("charges")
    .select("d.customer_number")
    .where("d.file_id", "=", fileId)
    .where("d.customer_number", "in", customerNumbers)
    .execute();
  // By the charges' request ids (the primary key): async_requests has no index on charge_id.
  const requests = new Map<string, AsyncRequestRecord>();
  const ids = rows.flatMap((row) => (row.request_id ? [row.request_id] : []));
  if (ids.length > 0)
    for (const row of await trx.selectFrom("async_requests").selectAll().where("id", "in", ids).execute())
      requests.set(row.charge_id, asyncRequestFromRow(row));
  // The row as it is (chargeFromRow reads its own columns): copying it without customer_number cost
  // more than the query.
  return rows.map((row) => ({
    charge: chargeFromRow(row),
    customerNumber: row.customer_number ?? "",
    request: requests.get(row.id),
  }));
}

/** Every item of the file answered, result 0 until `saveResultCodes` says otherwise. */
export async function answerItems(trx: Tx, table: ZenginItemKind, fileId: string, now: string): Promise<void> {
  await trx
    .updateTable(table)
    .set({ state: "answered", result_code: 0, updated_at: now })
    .where("file_id", "=", fileId)
    .execute();
}

/** The result codes other than 0, by customer number: one statement per code and batch. */
export async function saveResultCodes(
  trx: Tx,
  table: ZenginItemKind,
  fileId: string,
  failures: ReadonlyMap<number, readonly string[]>,
): Promise<void> {
  for (const [code, numbers] of failures)
    await trx
      .updateTable(table)
      .set({ result_code: code })
      .where("file_id", "=", fileId)
      .where("customer_number", "in", numbers)
      .execute();
}

/** Items scheduled for a date whose file is already written move to a later date. */
export async function rescheduleItems(
  trx: Tx,
  table: ZenginItemKind,
  group: { merchantId: string; contractCode: string; from: string; to: string; now: string },
): Promise<void> {
  await trx
    .updateTable(table)
    .set({ date: group.to, updated_at: group.now })
    .where("state", "=", "scheduled")
    .where("merchant_id", "=", group.merchantId)
    .where("date", "=", group.from)
    .where("contract_code", "=", group.contractCode)
    .execute();
}

export async function itemsOfFile(db: Tx, table: ZenginItemKind, fileId: string): Promise<ZenginItemRecord[]> {
  const rows = await db
    .selectFrom(table)
    .selectAll()
    .where("file_id", "=", fileId)
    .orderBy("customer_number")
    .execute();
  return rows.map(itemFromRow);
}

/** Records a file once (its id says which merchant, kind and date): false when it already was. */
export async function insertFile(trx: Tx, file: ZenginFileRecord): Promise<boolean> {
  const inserted = await trx
    .insertInto("zengin_files")
    .values(fileToRow(file))
    .onConflict((oc) => oc.column("id").doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function lockFile(tx: Transactor, trx: Tx, id: string): Promise<ZenginFileRecord | undefined> {
  const row = await tx.lockRows(trx.selectFrom("zengin_files").selectAll().where("id", "=", id)).executeTakeFirst();
  return row && fileFromRow(row);
}

export async function filesInState(
  db: Tx,
  direction: ZenginFileDirection,
  state: ZenginFileState,
): Promise<ZenginFileRecord[]> {
  const rows = await db
    .selectFrom("zengin_files")
    .selectAll()
    .where("direction", "=", direction)
    .where("state", "=", state)
    .orderBy("created_at")
    .execute();
  return rows.map(fileFromRow);
}

/** The received file with these bytes, if one was already imported or quarantined. */
export async function findIncomingBySha(db: Tx, sha256: string): Promise<ZenginFileRecord | undefined> {
  const row = await db
    .selectFrom("zengin_files")
    .selectAll()
    .where("direction", "=", "in")
    .where("sha256", "=", sha256)
    .executeTakeFirst();
  return row && fileFromRow(row);
}

/** The file we sent for a contract (its 委託者コード), kind and date (MMDD), newest first. */
export async function findSentFile(
  db: Tx,
  contract: { merchantId: string; code: string },
  kind: ZenginFileKind,
  monthDay: string,
): Promise<ZenginFileRecord | undefined> {
  const row = await db
    .selectFrom("zengin_files")
    .selectAll()
    .where("merchant_id", "=", contract.merchantId)
    .where("contract_code", "=", contract.code)
    .where("kind", "=", kind)
    .where("direction", "=", "out")
    .where("date", "like", `%-${monthDay.slice(0, 2)}-${monthDay.slice(2)}`)
    .where("state", "in", ["sent", "answered"])
    .orderBy("date", "desc")
    .executeTakeFirst();
  return row && fileFromRow(row);
}

export async function updateFile(trx: Tx, id: string, changes: Partial<ZenginFileRecord>): Promise<void> {
  await trx.updateTable("zengin_files").set(fileChangesToRow(changes)).where("id", "=", id).execute();
}

/** Files for the operator and the dashboard, newest first. */
export async function listFiles(db: Tx, merchantId?: string): Promise<ZenginFileRecord[]> {
  let query = db
    .selectFrom("zengin_files")
    .selectAll()
    .orderBy("created_at", "desc")
    .orderBy("id")
    .limit(limits.zenginFileListMax);
  if (merchantId) query = query.where("merchant_id", "=", merchantId);
  return (await query.execute()).map(fileFromRow);
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

export async function findSentFileByName(db: Tx, name: string): Promise<ZenginFileRecord | undefined> {
  const row = await db
    .selectFrom("zengin_files")
    .selectAll()
    .where("direction", "=", "out")
    .where("name", "=", name)
    .executeTakeFirst();
  return row && fileFromRow(row);
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
    decide: (account: BankAccountRecord) => number;
  },
): Promise<number> {
  return tx.write(async (trx) => {
    const account = await lockBankAccountByNumbers(tx, trx, request.merchantId, request);
    if (!account) return 2;
    if (await isBooked(trx, request.reference)) return 0;
    const code = request.decide(account);
    if (code !== 0) return code;
    await bookLedgerEntry(trx, {
      accountId: account.id,
      customerId: account.customerId,
      reference: request.reference,
      signedAmount: request.signedAmount,
      balanceAfter: Number(account.balance) + request.signedAmount,
      at: request.at,
    });
    return 0;
  });
}

/**
 * True when the merchant's mandate for this account is registered at the bank: its latest debit
 * answered with a code that speaks about the registration was answered 0 (振替済). A first debit
 * answered 2 or 4 (or 3) registered nothing, so the next one is 新規 again
 * (docs/guide/direct-debit-files.md#the-life-of-a-charge).
 */
export async function mandateRegistered(
  db: Tx,
  merchantId: string,
  account: Pick<BankAccountDetails, "bankCode" | "branchCode" | "accountNumber">,
): Promise<boolean> {
  const row = await db
    .selectFrom("zengin_debits")
    .select("result_code")
    .where("merchant_id", "=", merchantId)
    .where("account_key", "in", itemAccountKeys(account))
    .where("result_code", "in", registrationResultCodes)
    .orderBy("date", "desc")
    .orderBy("updated_at", "desc")
    .executeTakeFirst();
  return row?.result_code === 0;
}

/**
 * `mandateRegistered` for many debits at once: the `merchantId/accountId` pairs whose mandate is
 * registered (the latest answer that speaks about it was 0), a few queries per chunk of accounts.
 */
export async function registeredMandates(
  db: Tx,
  requests: readonly { merchantId: string; accountId: string }[],
  keysOf: ReadonlyMap<string, readonly string[]>,
): Promise<Set<string>> {
  const registered = new Set<string>();
  const pairs = [...new Map(requests.map((r) => [`${r.merchantId}/${r.accountId}`, r])).values()];
  for (let start = 0; start < pairs.length; start += 200) {
    const chunk = pairs.slice(start, start + 200);
    const ownersOfKey = new Map<string, string[]>();
    for (const pair of chunk)
      for (const key of keysOf.get(pair.accountId) ?? [])
        ownersOfKey.set(`${pair.merchantId}/${key}`, [
          ...(ownersOfKey.get(`${pair.merchantId}/${key}`) ?? []),
          `${pair.merchantId}/${pair.accountId}`,
        ]);
    if (ownersOfKey.size === 0) continue;
    const rows = await db
      .selectFrom("zengin_debits")
      .select(["merchant_id", "account_key", "result_code", "date", "updated_at"])
      .where("merchant_id", "in", [...new Set(chunk.map((pair) => pair.merchantId))])
      .where(
        "account_key",
        "in",
        [...ownersOfKey.keys()].map((owner) => owner.slice(owner.indexOf("/") + 1)),
      )
      .where("result_code", "in", registrationResultCodes)
      .execute();
    const latest = new Map<string, { at: string; code: number | null }>();
    for (const row of rows)
      for (const owner of ownersOfKey.get(`${row.merchant_id}/${row.account_key}`) ?? []) {
        const at = `${row.date ?? ""}|${row.updated_at}`;
        if (!latest.has(owner) || latest.get(owner)!.at < at) latest.set(owner, { at, code: row.result_code });
      }
    for (const [owner, answer] of latest) if (answer.code === 0) registered.add(owner);
  }
  return registered;
}

/**
 * The results that say whether the bank holds the mandate: 0 it does; 2, 3 and 4 it does not (or
 * no longer). A debit has a result code once answered and never before, so the queries above ask
 * for the codes alone, by the partial index of answered debits (migration 0036), which a condition
 * on the state would lead SQLite's planner away from.
 */
const registrationResultCodes = [0, 2, 3, 4];

/** A file's record count and total, from its items. */
export async function fileTotals(
  trx: Tx,
  table: ZenginItemKind,
  fileId: string,
): Promise<Pick<ZenginFileTotals, "recordCount" | "totalAmount">> {
  const row = await trx
    .selectFrom(table)
    .select([sql<number>`count(*)`.as("n"), sql<number>`coalesce(sum(amount), 0)`.as("total")])
    .where("file_id", "=", fileId)
    .executeTakeFirstOrThrow();
  return { recordCount: Number(row.n), totalAmount: Number(row.total) };
}

/** Minutes after 00:00 JST of a file's date when the simulated bank answers it (default 17:00). */
export const defaultSimulatedResultMinutes = 17 * 60;

export async function simulatedResultMinutes(db: Tx, merchantId: string): Promise<number> {
  const row = await db
    .selectFrom("zengin_simulated_bank")
    .select("result_delay_minutes")
    .where("merchant_id", "=", merchantId)
    .executeTakeFirst();
  return row?.result_delay_minutes ?? defaultSimulatedResultMinutes;
}

export async function saveSimulatedResultMinutes(trx: Tx, merchantId: string, minutes: number): Promise<void> {
  await trx
    .insertInto("zengin_simulated_bank")
    .values({ merchant_id: merchantId, result_delay_minutes: minutes })
    .onConflict((oc) => oc.column("merchant_id").doUpdateSet({ result_delay_minutes: minutes }))
    .execute();
}
