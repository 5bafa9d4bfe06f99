import type { Kysely } from "kysely";
import type { CustomerAppSessionRecord } from "../domain/customer-app-sign-in.js";
import type { Database } from "./schema.js";
import type { Tx } from "./transactor.js";

/** Customer-app sessions (docs/guide/customer-app.md#sessions): only hashes of the tokens are kept. */

export async function insertCustomerAppSession(trx: Tx, session: CustomerAppSessionRecord): Promise<void> {
  await trx
    .insertInto("customer_app_sessions")
    .values({
      id_hash: session.idHash,
      email_normalized: session.emailNormalized,
      csrf_hash: session.csrfHash,
      created_at: session.createdAt.toISOString(),
      idle_expires_at: session.idleExpiresAt.toISOString(),
      absolute_expires_at: session.absoluteExpiresAt.toISOString(),
    })
    .execute();
}

export async function findCustomerAppSession(
  db: Kysely<Database>,
  idHash: string,
): Promise<CustomerAppSessionRecord | undefined> {
  const row = await db.selectFrom("customer_app_sessions").selectAll().where("id_hash", "=", idHash).executeTakeFirst();
  return (
    row && {
      idHash: row.id_hash,
      emailNormalized: row.email_normalized,
      csrfHash: row.csrf_hash,
      createdAt: new Date(row.created_at),
      idleExpiresAt: new Date(row.idle_expires_at),
      absoluteExpiresAt: new Date(row.absolute_expires_at),
    }
  );
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
