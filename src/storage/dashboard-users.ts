import type { Kysely, Updateable } from "kysely";
import { normalizeEmail } from "../domain/customer.js";
import type { RoleName } from "../domain/dashboard-role.js";
import type { DashboardSessionRecord, SignInChallengeRecord } from "../domain/dashboard-session.js";
import type { DashboardUserChange, DashboardUserRecord } from "../domain/dashboard-user.js";
import type { Database, DashboardSessionTable, DashboardUserTable, SignInChallengeTable } from "./schema.js";
import type { Transactor, Tx } from "./transactor.js";
import { seal, unseal } from "./sealed.js";

/** Row → record, the TOTP seed unsealed. */
export function dashboardUserFromRow(row: DashboardUserTable): DashboardUserRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    email: row.email,
    passwordHash: row.password_hash,
    totpSecret: unseal(row.totp_secret),
    totpEnabled: row.totp_enabled === 1,
    totpLastStep: row.totp_last_step,
    totpFailures: row.totp_failures,
    totpLockedUntil: row.totp_locked_until ? new Date(row.totp_locked_until) : null,
    role: row.role as RoleName,
    totpSetupRequired: row.totp_setup_required === 1,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    removedAt: row.removed_at ? new Date(row.removed_at) : null,
    accessEpoch: row.access_epoch,
  };
}

/** Record → row, the TOTP seed sealed (the columns sign-in no longer uses stay empty). */
function dashboardUserToRow(user: DashboardUserRecord): DashboardUserTable {
  return {
    id: user.id,
    merchant_id: user.merchantId,
    email: user.email,
    email_normalized: normalizeEmail(user.email),
    password_hash: user.passwordHash,
    failed_sign_ins: 0,
    sign_in_locked_until: null,
    totp_secret: seal(user.totpSecret),
    totp_enabled: user.totpEnabled ? 1 : 0,
    totp_last_step: user.totpLastStep,
    totp_failures: user.totpFailures,
    totp_locked_until: user.totpLockedUntil?.toISOString() ?? null,
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
    role: user.role,
    totp_setup_required: user.totpSetupRequired ? 1 : 0,
    removed_at: user.removedAt?.toISOString() ?? null,
    access_epoch: user.accessEpoch,
  };
}

/** The columns a change sets (only those it names). */
function dashboardUserChangeToRow(change: DashboardUserChange): Updateable<DashboardUserTable> {
  const row: Updateable<DashboardUserTable> = {};
  if (change.passwordHash !== undefined) row.password_hash = change.passwordHash;
  if (change.totpSecret !== undefined) row.totp_secret = seal(change.totpSecret);
  if (change.totpEnabled !== undefined) row.totp_enabled = change.totpEnabled ? 1 : 0;
  if (change.totpLastStep !== undefined) row.totp_last_step = change.totpLastStep;
  if (change.totpFailures !== undefined) row.totp_failures = change.totpFailures;
  if (change.totpLockedUntil !== undefined) row.totp_locked_until = change.totpLockedUntil?.toISOString() ?? null;
  if (change.totpSetupRequired !== undefined) row.totp_setup_required = change.totpSetupRequired ? 1 : 0;
  if (change.updatedAt !== undefined) row.updated_at = change.updatedAt.toISOString();
  return row;
}

const maybeUser = (row: DashboardUserTable | undefined) => row && dashboardUserFromRow(row);

export async function insertDashboardUser(db: Kysely<Database>, user: DashboardUserRecord): Promise<void> {
  await db.insertInto("dashboard_users").values(dashboardUserToRow(user)).execute();
}

export async function findDashboardUserByEmail(
  db: Kysely<Database>,
  emailNormalized: string,
): Promise<DashboardUserRecord | undefined> {
  return maybeUser(
    await db
      .selectFrom("dashboard_users")
      .selectAll()
      .where("email_normalized", "=", emailNormalized)
      .executeTakeFirst(),
  );
}

export async function findDashboardUserById(
  db: Kysely<Database>,
  id: string,
): Promise<DashboardUserRecord | undefined> {
  return maybeUser(await db.selectFrom("dashboard_users").selectAll().where("id", "=", id).executeTakeFirst());
}

export async function lockDashboardUser(tx: Transactor, trx: Tx, id: string): Promise<DashboardUserRecord | undefined> {
  return maybeUser(
    await tx.lockRows(trx.selectFrom("dashboard_users").selectAll().where("id", "=", id)).executeTakeFirst(),
  );
}

export async function updateDashboardUser(
  db: Kysely<Database>,
  id: string,
  change: DashboardUserChange,
): Promise<void> {
  await db.updateTable("dashboard_users").set(dashboardUserChangeToRow(change)).where("id", "=", id).execute();
}

export async function insertDashboardSession(
  db: Kysely<Database>,
  session: Pick<
    DashboardSessionRecord,
    "idHash" | "userId" | "csrfHash" | "idleExpiresAt" | "absoluteExpiresAt" | "totpVerifiedAt"
  > & {
    createdAt: Date;
    /** The user's access epoch the session begins under. */
    userEpoch: number;
  },
): Promise<void> {
  const row: DashboardSessionTable = {
    id_hash: session.idHash,
    user_id: session.userId,
    csrf_hash: session.csrfHash,
    created_at: session.createdAt.toISOString(),
    idle_expires_at: session.idleExpiresAt.toISOString(),
    absolute_expires_at: session.absoluteExpiresAt.toISOString(),
    totp_verified_at: session.totpVerifiedAt?.toISOString() ?? null,
    user_epoch: session.userEpoch,
  };
  await db.insertInto("dashboard_sessions").values(row).execute();
}

/**
 * A session with its user and the user's merchant, as one read; only while the user is on the team
 * and the session began under the user's current access epoch (docs/reference/security.md#access-that-ends).
 */
export async function findDashboardSession(
  db: Kysely<Database>,
  idHash: string,
): Promise<DashboardSessionRecord | undefined> {
  const row = await db
    .selectFrom("dashboard_sessions")
    .innerJoin("dashboard_users", "dashboard_users.id", "dashboard_sessions.user_id")
    .innerJoin("merchants", "merchants.id", "dashboard_users.merchant_id")
    .select([
      "dashboard_sessions.id_hash",
      "dashboard_sessions.csrf_hash",
      "dashboard_sessions.totp_verified_at",
      "dashboard_sessions.idle_expires_at",
      "dashboard_sessions.absolute_expires_at",
      "dashboard_sessions.user_epoch",
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
    .where("dashboard_users.removed_at", "is", null)
    .whereRef("dashboard_sessions.user_epoch", "=", "dashboard_users.access_epoch")
    .executeTakeFirst();
  return (
    row && {
      idHash: row.id_hash,
      csrfHash: row.csrf_hash,
      totpVerifiedAt: row.totp_verified_at ? new Date(row.totp_verified_at) : null,
      idleExpiresAt: new Date(row.idle_expires_at),
      absoluteExpiresAt: new Date(row.absolute_expires_at),
      userId: row.user_id,
      email: row.email,
      totpEnabled: row.totp_enabled === 1,
      role: row.role as RoleName,
      totpSetupRequired: row.totp_setup_required === 1,
      merchantId: row.merchant_id,
      merchantName: row.merchant_name,
      dashboardTotpRequired: row.dashboard_totp_required === 1,
      userEpoch: row.user_epoch,
    }
  );
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

function challengeFromRow(row: SignInChallengeTable): SignInChallengeRecord {
  return {
    idHash: row.id_hash,
    userId: row.user_id,
    expiresAt: new Date(row.expires_at),
    createdAt: new Date(row.created_at),
    userEpoch: row.user_epoch,
  };
}

/** A pending second step; expired ones (of anyone) are cleared on the way. */
export async function insertSignInChallenge(db: Kysely<Database>, challenge: SignInChallengeRecord): Promise<void> {
  const createdAt = challenge.createdAt.toISOString();
  await db.deleteFrom("sign_in_challenges").where("expires_at", "<=", createdAt).execute();
  await db
    .insertInto("sign_in_challenges")
    .values({
      id_hash: challenge.idHash,
      user_id: challenge.userId,
      expires_at: challenge.expiresAt.toISOString(),
      created_at: createdAt,
      user_epoch: challenge.userEpoch,
    })
    .execute();
}

/** The pending second step of a sign-in, removed as it is read (a token works once). */
export async function takeSignInChallenge(
  tx: Transactor,
  trx: Tx,
  idHash: string,
): Promise<SignInChallengeRecord | undefined> {
  const challenge = await tx
    .lockRows(trx.selectFrom("sign_in_challenges").selectAll().where("id_hash", "=", idHash))
    .executeTakeFirst();
  if (challenge) await trx.deleteFrom("sign_in_challenges").where("id_hash", "=", idHash).execute();
  return challenge && challengeFromRow(challenge);
}

export async function findSignInChallenge(
  db: Kysely<Database>,
  idHash: string,
): Promise<SignInChallengeRecord | undefined> {
  const row = await db.selectFrom("sign_in_challenges").selectAll().where("id_hash", "=", idHash).executeTakeFirst();
  return row && challengeFromRow(row);
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
