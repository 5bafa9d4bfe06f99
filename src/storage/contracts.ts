import { runCompiled, slot } from "./compiled-once.js";
import { ContractStatus } from "../../gen/payments/v1/enums_pb.js";
import type { ContractRecord } from "../domain/records.js";
import type { Database } from "./schema.js";
import type { Kysely } from "kysely";
import { contractFromRow, contractToRow } from "./records.js";
import type { Transactor, Tx } from "./transactor.js";

/** What a subscription cycle reads of a contract. */
export type ContractState = Pick<ContractRecord, "id" | "status" | "bankAccountId">;

export async function insertContract(trx: Tx, contract: ContractRecord): Promise<void> {
  await trx.insertInto("contracts").values(contractToRow(contract)).execute();
}

/** Writes a status change made by the contract state machine. */
export async function saveContractStatus(trx: Tx, contract: ContractRecord): Promise<void> {
  await trx
    .updateTable("contracts")
    .set({ status: contract.status, updated_at: contract.updatedAt.toISOString() })
    .where("id", "=", contract.id)
    .execute();
}

/** The account a contract is approved with (flows/payment-link-transition.ts). */
export async function saveContractAccount(trx: Tx, contractId: string, accountId: string): Promise<void> {
  await trx.updateTable("contracts").set({ bank_account_id: accountId }).where("id", "=", contractId).execute();
}

export async function findContractById(db: Kysely<Database>, id: string): Promise<ContractRecord | undefined> {
  const row = await db.selectFrom("contracts").selectAll().where("id", "=", id).executeTakeFirst();
  return row && contractFromRow(row);
}

/** The customer's ACTIVATED contracts, newest first (normally one). */
export async function findActivatedContracts(db: Kysely<Database>, customerId: string): Promise<ContractRecord[]> {
  const rows = await runCompiled(
    db,
    "activated contracts of customer",
    () =>
      db
        .selectFrom("contracts")
        .selectAll()
        .where("customer_id", "=", slot("customer"))
        .where("status", "=", ContractStatus.ACTIVATED)
        .orderBy("created_at", "desc"),
    { customer: customerId },
  );
  return rows.map(contractFromRow);
}

export async function lockContract(tx: Transactor, trx: Tx, id: string): Promise<ContractRecord | undefined> {
  const row = await tx.lockRows(trx.selectFrom("contracts").selectAll().where("id", "=", id)).executeTakeFirst();
  return row && contractFromRow(row);
}

/** Whether contracts may be charged, and from which account, by id (a subscription cycle's page), in chunks. */
export async function findContractStatesByIds(
  db: Kysely<Database>,
  ids: readonly string[],
): Promise<Map<string, ContractState>> {
  const found = new Map<string, ContractState>();
  const unique = [...new Set(ids)];
  for (let start = 0; start < unique.length; start += 500) {
    const rows = await db
      .selectFrom("contracts")
      .select(["id", "status", "bank_account_id"])
      .where("id", "in", unique.slice(start, start + 500))
      .execute();
    for (const row of rows) found.set(row.id, { id: row.id, status: row.status, bankAccountId: row.bank_account_id });
  }
  return found;
}
