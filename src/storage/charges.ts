import { insertRows } from "./bulk-insert.js";
import { assertChargeInvariants } from "../domain/invariants.js";
import type { ChargeRecord } from "../domain/records.js";
import { chargeFromRow, chargeToRow } from "./records.js";
import type { Transactor, Tx } from "./transactor.js";
import { limits } from "../domain/limits.js";

export async function insertCharge(trx: Tx, charge: ChargeRecord): Promise<void> {
  await insertCharges(trx, [charge]);
}

/** `insertCharge` for many charges at once (a subscription cycle's page), in chunks. */
export async function insertCharges(trx: Tx, charges: readonly ChargeRecord[]): Promise<void> {
  for (const charge of charges) assertChargeInvariants(charge);
  await insertRows(trx, "charges", charges.map(chargeToRow));
}

/** Writes a status change made by the charge state machine (status, error, timestamps). */
export async function saveChargeStatus(trx: Tx, charge: ChargeRecord): Promise<void> {
  assertChargeInvariants(charge);
  await trx
    .updateTable("charges")
    .set({
      status: charge.status,
      error_type: charge.errorType,
      error_message: charge.errorMessage,
      succeeded_at: charge.succeededAt?.toISOString() ?? null,
      updated_at: charge.updatedAt.toISOString(),
    })
    .where("id", "=", charge.id)
    .execute();
}

/** The account a charge is paid from, fixed as its approval is claimed (flows/payment-link-transition.ts). */
export async function saveChargeAccount(trx: Tx, chargeId: string, accountId: string): Promise<void> {
  await trx.updateTable("charges").set({ bank_account_id: accountId }).where("id", "=", chargeId).execute();
}

/**
 * `saveChargeStatus` for many charges at once (a Zengin result file settles a whole file): one
 * UPDATE per distinct change and chunk of ids.
 */
export async function saveChargeStatuses(trx: Tx, charges: readonly ChargeRecord[]): Promise<void> {
  for (const charge of charges) assertChargeInvariants(charge);
  await updateGrouped(
    charges.map((charge) => ({
      id: charge.id,
      set: {
        status: charge.status,
        error_type: charge.errorType,
        error_message: charge.errorMessage,
        succeeded_at: charge.succeededAt?.toISOString() ?? null,
        updated_at: charge.updatedAt.toISOString(),
      },
    })),
    (set, ids) => trx.updateTable("charges").set(set).where("id", "in", ids).execute(),
  );
}

/** Runs `update` once per distinct change and chunk of at most 500 ids. */
export async function updateGrouped<T extends object>(
  rows: readonly { id: string; set: T }[],
  update: (set: T, ids: string[]) => Promise<unknown>,
): Promise<void> {
  const groups = new Map<string, { set: T; ids: string[] }>();
  for (const row of rows) {
    const key = JSON.stringify(row.set);
    const group = groups.get(key) ?? { set: row.set, ids: [] };
    group.ids.push(row.id);
    groups.set(key, group);
  }
  for (const { set, ids } of groups.values())
    for (let start = 0; start < ids.length; start += limits.sqlInListIds)
      await update(set, ids.slice(start, start + limits.sqlInListIds));
}

export async function lockCharge(tx: Transactor, trx: Tx, id: string): Promise<ChargeRecord | undefined> {
  const row = await tx.lockRows(trx.selectFrom("charges").selectAll().where("id", "=", id)).executeTakeFirst();
  return row && chargeFromRow(row);
}

/**
 * Locks many charges by id (the engine's batch of jobs), in id order so two batches lock their
 * common rows in the same order; a missing id is left out.
 */
export async function lockChargesByIds(tx: Transactor, trx: Tx, ids: readonly string[]): Promise<ChargeRecord[]> {
  const rows = await inSortedIdChunks(ids, (chunk) =>
    tx.lockRows(trx.selectFrom("charges").selectAll().where("id", "in", chunk).orderBy("id")).execute(),
  );
  return rows.map(chargeFromRow);
}

/** Runs `select` over distinct ids, sorted (a lock order), in chunks of at most limits.sqlInListIds. */
export async function inSortedIdChunks<R>(
  ids: readonly string[],
  select: (chunk: string[]) => Promise<R[]>,
): Promise<R[]> {
  const unique = [...new Set(ids)].sort();
  const rows: R[] = [];
  for (let start = 0; start < unique.length; start += limits.sqlInListIds)
    rows.push(...(await select(unique.slice(start, start + limits.sqlInListIds))));
  return rows;
}
