import type { Kysely } from "kysely";
import type { Database, DashboardSessionTable, DashboardUserTable, SignInChallengeTable } from "./schema.js";
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

export async function findDashboardUserById(db: Kysely<Database>, id: string): Promise<DashboardUserRow | undefined> {
  return opened(await db.selectFrom("dashboard_users").selectAll().where("id", "=", id).executeTakeFirst());
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
      "dashboard_users.role",
      "dashboard_users.totp_setup_required",
      "merchants.id as merchant_id",
      "merchants.name as merchant_name",
      "merchants.dashboard_totp_required",
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

/** A pending second step; expired ones (of anyone) are cleared on the way. */
export async function insertSignInChallenge(db: Kysely<Database>, challenge: SignInChallengeTable): Promise<void> {
  await db.deleteFrom("sign_in_challenges").where("expires_at", "<=", challenge.created_at).execute();
  await db.insertInto("sign_in_challenges").values(challenge).execute();
}

/** The pending second step of a sign-in, removed as it is read (a token works once). */
export async function takeSignInChallenge(
  tx: Transactor,
  trx: Tx,
  idHash: string,
): Promise<SignInChallengeTable | undefined> {
  const challenge = await tx
    .lockRows(trx.selectFrom("sign_in_challenges").selectAll().where("id_hash", "=", idHash))
    .executeTakeFirst();
  if (challenge) await trx.deleteFrom("sign_in_challenges").where("id_hash", "=", idHash).execute();
  return challenge;
}

export async function findSignInChallenge(
  db: Kysely<Database>,
  idHash: string,
): Promise<SignInChallengeTable | undefined> {
  return db.selectFrom("sign_in_challenges").selectAll().where("id_hash", "=", idHash).executeTakeFirst();
}

/** Replaces a user's recovery codes (at enrolment). */
export async function replaceRecoveryCodes(
  db: Kysely<Database>,
  userId: string,
  codeHashes: string[],
  nowIso: string,
): Promise<void> {
  await db.deleteFrom("recovery_codes").where("user_id", "=", userId).execute();
  await db
    .insertInto("recovery_codes")
    .values(codeHashes.map((code_hash) => ({ user_id: userId, code_hash, used_at: null, created_at: nowIso })))
    .execute();
}

/** Marks an unused recovery code used: false when there is none such (wrong, or already used). */
export async function useRecoveryCode(
  db: Kysely<Database>,
  userId: string,
  codeHash: string,
  nowIso: string,
): Promise<boolean> {
  const result = await db
    .updateTable("recovery_codes")
    .set({ used_at: nowIso })
    .where("user_id", "=", userId)
    .where("code_hash", "=", codeHash)
    .where("used_at", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function setSessionTotpVerified(db: Kysely<Database>, idHash: string, atIso: string): Promise<void> {
  await db.updateTable("dashboard_sessions").set({ totp_verified_at: atIso }).where("id_hash", "=", idHash).execute();
}

export async function setMerchantTotpRequired(db: Kysely<Database>, merchantId: string, required: boolean) {
  await db
    .updateTable("merchants")
    .set({ dashboard_totp_required: required ? 1 : 0 })
    .where("id", "=", merchantId)
    .execute();
}
