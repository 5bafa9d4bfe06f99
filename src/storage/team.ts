import type { Kysely } from "kysely";
import type { RoleName } from "../domain/dashboard-role.js";
import type { DashboardUserRecord, TeamMember } from "../domain/dashboard-user.js";
import type { InvitationPurpose, InvitationRecord } from "../domain/invitation.js";
import { dashboardUserFromRow } from "./dashboard-users.js";
import type { Database, DashboardInvitationTable } from "./schema.js";
import type { Transactor, Tx } from "./transactor.js";

/** A merchant's team (docs/guide/dashboard.md#the-team): its users, invitations and reset links. */

/** The merchant's users that were not removed, oldest first. */
export async function listTeamMembers(db: Kysely<Database>, merchantId: string): Promise<TeamMember[]> {
  const rows = await db
    .selectFrom("dashboard_users")
    .select(["id", "email", "role", "totp_enabled", "created_at"])
    .where("merchant_id", "=", merchantId)
    .where("removed_at", "is", null)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map((row) => ({
    id: row.id,
    email: row.email,
    role: row.role as RoleName,
    totpEnabled: row.totp_enabled === 1,
    createdAt: new Date(row.created_at),
  }));
}

function invitationFromRow(row: DashboardInvitationTable): InvitationRecord {
  return {
    tokenHash: row.token_hash,
    id: row.id,
    merchantId: row.merchant_id,
    purpose: row.purpose as InvitationPurpose,
    email: row.email,
    role: row.role as RoleName,
    userId: row.user_id,
    createdBy: row.created_by,
    expiresAt: new Date(row.expires_at),
    usedAt: row.used_at ? new Date(row.used_at) : null,
    createdAt: new Date(row.created_at),
  };
}

function invitationToRow(invitation: InvitationRecord): DashboardInvitationTable {
  return {
    token_hash: invitation.tokenHash,
    id: invitation.id,
    merchant_id: invitation.merchantId,
    purpose: invitation.purpose,
    email: invitation.email,
    role: invitation.role,
    user_id: invitation.userId,
    created_by: invitation.createdBy,
    expires_at: invitation.expiresAt.toISOString(),
    used_at: invitation.usedAt?.toISOString() ?? null,
    created_at: invitation.createdAt.toISOString(),
  };
}

/** A user of the merchant (not removed), its row locked. */
export async function lockTeamMember(
  tx: Transactor,
  trx: Tx,
  merchantId: string,
  userId: string,
): Promise<DashboardUserRecord | undefined> {
  const row = await tx
    .lockRows(
      trx
        .selectFrom("dashboard_users")
        .selectAll()
        .where("id", "=", userId)
        .where("merchant_id", "=", merchantId)
        .where("removed_at", "is", null),
    )
    .executeTakeFirst();
  return row && dashboardUserFromRow(row);
}

/** The merchant's owners, their rows locked: two owners demoting each other at once cannot both succeed. */
export async function lockOwners(tx: Transactor, trx: Tx, merchantId: string): Promise<string[]> {
  const rows = await tx
    .lockRows(
      trx
        .selectFrom("dashboard_users")
        .select("id")
        .where("merchant_id", "=", merchantId)
        .where("role", "=", "owner")
        .where("removed_at", "is", null),
    )
    .execute();
  return rows.map((row) => row.id);
}

/** A new role: the user's sessions end with the old one (they sign in again under the new one). */
export async function setTeamMemberRole(db: Kysely<Database>, userId: string, role: RoleName, nowIso: string) {
  await db.updateTable("dashboard_users").set({ role, updated_at: nowIso }).where("id", "=", userId).execute();
  await endSessionsOfUser(db, userId);
}

/**
 * Removes a user: the row stays (the audit log and CSV batches name it) with its e-mail freed for
 * another invitation and no password; its sessions, recovery codes and reset links go.
 */
export async function removeTeamMember(db: Kysely<Database>, userId: string, nowIso: string): Promise<void> {
  await db
    .updateTable("dashboard_users")
    .set({ removed_at: nowIso, email_normalized: `removed:${userId}`, password_hash: "", updated_at: nowIso })
    .where("id", "=", userId)
    .execute();
  await endSessionsOfUser(db, userId);
  await db.deleteFrom("recovery_codes").where("user_id", "=", userId).execute();
  await db.deleteFrom("dashboard_invitations").where("user_id", "=", userId).where("used_at", "is", null).execute();
}

/**
 * Every session of a user ends (removed, its password or TOTP reset, its role changed), and every
 * sign-in in flight with them: the access epoch moves on, so a session a racing sign-in writes
 * under the old one never counts (docs/reference/security.md#access-that-ends).
 */
export async function endSessionsOfUser(db: Kysely<Database>, userId: string): Promise<void> {
  await db
    .updateTable("dashboard_users")
    .set((eb) => ({ access_epoch: eb("access_epoch", "+", 1) }))
    .where("id", "=", userId)
    .execute();
  await db.deleteFrom("dashboard_sessions").where("user_id", "=", userId).execute();
  await db.deleteFrom("sign_in_challenges").where("user_id", "=", userId).execute();
}

/** TOTP off and to be enrolled again at the next sign-in; the recovery codes go with it. */
export async function resetTotpOfUser(db: Kysely<Database>, userId: string, nowIso: string): Promise<void> {
  await db
    .updateTable("dashboard_users")
    .set({ totp_enabled: 0, totp_secret: "", totp_setup_required: 1, updated_at: nowIso })
    .where("id", "=", userId)
    .execute();
  await db.deleteFrom("recovery_codes").where("user_id", "=", userId).execute();
  await endSessionsOfUser(db, userId);
}

export async function insertInvitation(db: Kysely<Database>, invitation: InvitationRecord): Promise<void> {
  await db.insertInto("dashboard_invitations").values(invitationToRow(invitation)).execute();
}

/** A link by its token's hash, with its merchant's name (used or not, expired or not). */
export async function findInvitation(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<(InvitationRecord & { merchantName: string }) | undefined> {
  const row = await db
    .selectFrom("dashboard_invitations")
    .innerJoin("merchants", "merchants.id", "dashboard_invitations.merchant_id")
    .selectAll("dashboard_invitations")
    .select("merchants.name as merchant_name")
    .where("token_hash", "=", tokenHash)
    .executeTakeFirst();
  return row && { ...invitationFromRow(row), merchantName: row.merchant_name };
}

/** Uses a link once: false when it was used (or cancelled) already. */
export async function useInvitation(db: Kysely<Database>, tokenHash: string, nowIso: string): Promise<boolean> {
  const result = await db
    .updateTable("dashboard_invitations")
    .set({ used_at: nowIso })
    .where("token_hash", "=", tokenHash)
    .where("used_at", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Invitations of new users not yet used nor expired, newest first. */
export async function listPendingInvitations(
  db: Kysely<Database>,
  merchantId: string,
  nowIso: string,
): Promise<InvitationRecord[]> {
  const rows = await db
    .selectFrom("dashboard_invitations")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .where("purpose", "=", "invite")
    .where("used_at", "is", null)
    .where("expires_at", ">", nowIso)
    .orderBy("created_at", "desc")
    .execute();
  return rows.map(invitationFromRow);
}

/** Cancels a pending invitation (marks it used): false when there is none such of the merchant. */
export async function cancelInvitation(
  db: Kysely<Database>,
  merchantId: string,
  id: string,
  nowIso: string,
): Promise<InvitationRecord | undefined> {
  const found = await db
    .selectFrom("dashboard_invitations")
    .selectAll()
    .where("id", "=", id)
    .where("merchant_id", "=", merchantId)
    .where("used_at", "is", null)
    .executeTakeFirst();
  if (!found) return undefined;
  await useInvitation(db, found.token_hash, nowIso);
  return invitationFromRow(found);
}

/** Whether an active user of this merchant already has this e-mail. */
export async function emailTakenInMerchant(
  db: Kysely<Database>,
  merchantId: string,
  emailNormalized: string,
): Promise<boolean> {
  const row = await db
    .selectFrom("dashboard_users")
    .select("id")
    .where("email_normalized", "=", emailNormalized)
    .where("merchant_id", "=", merchantId)
    .executeTakeFirst();
  return row !== undefined;
}
