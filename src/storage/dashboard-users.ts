import type { Kysely } from "kysely";
import type { Database, DashboardSessionTable, DashboardUserTable } from "./schema.js";
import type { Transactor, Tx } from "./transactor.js";
import { seal, unseal } from "./sealed.js";

export type DashboardUserRow = DashboardUserTable;

export async function insertDashboardUser(db: Kysely<Database>, user: DashboardUserRow): Promise<void> {
  await db
    .insertInto("dashboard_users")
    .values({ ...user, totp_secret: seal(user.totp_secret) })
    .execute();
}

/** The row with its TOTP seed unsealed. */
function opened(row: DashboardUserRow | undefined): DashboardUserRow | undefined {
  return row && { ...row, totp_secret: unseal(row.totp_secret) };
}

export async function findDashboardUserByEmail(
  db: Kysely<Database>,
  emailNormalized: string,
): Promise<DashboardUserRow | undefined> {
  return opened(
    await db
      .selectFrom("dashboard_users")
      .selectAll()
      .where("email_normalized", "=", emailNormalized)
      .executeTakeFirst(),
  );
}

export async function lockDashboardUser(tx: Transactor, trx: Tx, id: string): Promise<DashboardUserRow | undefined> {
  return opened(
    await tx.lockRows(trx.selectFrom("dashboard_users").selectAll().where("id", "=", id)).executeTakeFirst(),
  );
}

export async function updateDashboardUser(
  db: Kysely<Database>,
  id: string,
  change: Partial<Omit<DashboardUserRow, "id" | "merchant_id" | "created_at">>,
): Promise<void> {
  const sealed = change.totp_secret === undefined ? change : { ...change, totp_secret: seal(change.totp_secret) };
  await db.updateTable("dashboard_users").set(sealed).where("id", "=", id).execute();
}

export async function insertDashboardSession(db: Kysely<Database>, session: DashboardSessionTable): Promise<void> {
  await db.insertInto("dashboard_sessions").values(session).execute();
}

/** A session with its user and the user's merchant, as one read. */
export async function findDashboardSession(db: Kysely<Database>, idHash: string) {
  return db
    .selectFrom("dashboard_sessions")
    .innerJoin("dashboard_users", "dashboard_users.id", "dashboard_sessions.user_id")
    .innerJoin("merchants", "merchants.id", "dashboard_users.merchant_id")
    .select([
      "dashboard_sessions.id_hash",
      "dashboard_sessions.csrf_hash",
      "dashboard_sessions.totp_verified_at",
      "dashboard_sessions.idle_expires_at",
      "dashboard_sessions.absolute_expires_at",
      "dashboard_users.id as user_id",
      "dashboard_users.email",
      "dashboard_users.totp_enabled",
      "merchants.id as merchant_id",
      "merchants.name as merchant_name",
    ])
    .where("dashboard_sessions.id_hash", "=", idHash)
    .executeTakeFirst();
}

export async function setSessionIdleExpiry(db: Kysely<Database>, idHash: string, idleExpiresAt: string): Promise<void> {
  await db
    .updateTable("dashboard_sessions")
    .set({ idle_expires_at: idleExpiresAt })
    .where("id_hash", "=", idHash)
    .execute();
}

export async function deleteDashboardSession(db: Kysely<Database>, idHash: string): Promise<void> {
  await db.deleteFrom("dashboard_sessions").where("id_hash", "=", idHash).execute();
}

/** Sessions past their deadlines (idle or absolute) of one user, removed at sign-in. */
export async function deleteExpiredSessionsOfUser(db: Kysely<Database>, userId: string, nowIso: string): Promise<void> {
  await db
    .deleteFrom("dashboard_sessions")
    .where("user_id", "=", userId)
    .where((eb) => eb.or([eb("idle_expires_at", "<=", nowIso), eb("absolute_expires_at", "<=", nowIso)]))
    .execute();
}
