import type { Kysely } from "kysely";
import type { CustomerAppSessionTable, Database } from "./schema.js";
import type { Tx } from "./transactor.js";

/** Customer-app sessions (docs/guide/customer-app.md#sessions): only hashes of the tokens are kept. */

export async function insertCustomerAppSession(trx: Tx, session: CustomerAppSessionTable): Promise<void> {
  await trx.insertInto("customer_app_sessions").values(session).execute();
}

export async function findCustomerAppSession(
  db: Kysely<Database>,
  idHash: string,
): Promise<CustomerAppSessionTable | undefined> {
  return db.selectFrom("customer_app_sessions").selectAll().where("id_hash", "=", idHash).executeTakeFirst();
}

export async function setCustomerAppSessionIdleExpiry(trx: Tx, idHash: string, idleExpiresAt: string): Promise<void> {
  await trx
    .updateTable("customer_app_sessions")
    .set({ idle_expires_at: idleExpiresAt })
    .where("id_hash", "=", idHash)
    .execute();
}

export async function deleteCustomerAppSession(trx: Tx, idHash: string): Promise<void> {
  await trx.deleteFrom("customer_app_sessions").where("id_hash", "=", idHash).execute();
}

/** Forgets sessions past their absolute deadline (each sign-in sweeps them). */
export async function deleteEndedCustomerAppSessions(trx: Tx, nowIso: string): Promise<void> {
  await trx.deleteFrom("customer_app_sessions").where("absolute_expires_at", "<=", nowIso).execute();
}
