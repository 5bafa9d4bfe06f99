import { hashSessionToken, newSessionToken } from "../domain/dashboard-session.js";
import type { RoleName } from "../domain/dashboard-role.js";
import { normalizeEmail } from "../domain/customer.js";
import { newId } from "../domain/ids.js";
import {
  invitationInvalid,
  invitationUrl,
  invitationUsable,
  invitationValidityMs,
  lastOwner,
  teamMemberNotFound,
  userExists,
  type InvitationPurpose,
  type InvitationRecord,
} from "../domain/invitation.js";
import { invitationMail, passwordResetMail, type MailText } from "../domain/team-mail.js";
import type { DashboardUserRecord } from "../domain/dashboard-user.js";
import { hashPassword, passwordProblem } from "../domain/password-hash.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import {
  findDashboardUserByEmail,
  findDashboardUserById,
  insertDashboardUser,
  updateDashboardUser,
} from "../storage/dashboard-users.js";
import {
  cancelInvitation,
  emailTakenInMerchant,
  endSessionsOfUser,
  findInvitation,
  insertInvitation,
  listPendingInvitations,
  listTeamMembers,
  lockOwners,
  lockTeamMember,
  removeTeamMember,
  resetTotpOfUser,
  setTeamMemberRole,
  useInvitation,
} from "../storage/team.js";
import { isUniqueViolation, type Tx } from "../storage/transactor.js";
import {
  newUser,
  requireTotpStepUp,
  startSession,
  type CallOrigin,
  type DashboardPrincipal,
  type NewSession,
} from "./dashboard-auth.js";
import type { FlowContext } from "./flow-context.js";
import { auditedBy, recordAudit } from "./audit.js";
import { commandLine } from "../domain/audit.js";
import { operatorMailbox } from "../domain/mailbox-message.js";

/**
 * The team of a merchant (docs/guide/dashboard.md#the-team): owners invite, re-role, remove and
 * reset users, each change stepped up with a TOTP code and written to the audit log with it.
 */

export async function teamOf(ctx: FlowContext, merchantId: string) {
  const [members, invitations] = await Promise.all([
    listTeamMembers(ctx.tx.db, merchantId),
    listPendingInvitations(ctx.tx.db, merchantId, ctx.clock.now().toISOString()),
  ]);
  return { members, invitations };
}

/** A single-use link: the invitation to store (its token hashed) and the URL, shown once. */
function newLink(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  purpose: InvitationPurpose,
  who: { email: string; role: RoleName; userId: string | null },
) {
  const token = newSessionToken();
  const now = ctx.clock.now();
  const invitation: InvitationRecord = {
    tokenHash: hashSessionToken(token),
    id: newId("inv"),
    merchantId: principal.merchant.id,
    purpose,
    email: who.email,
    role: who.role,
    userId: who.userId,
    createdBy: principal.email,
    expiresAt: new Date(now.getTime() + invitationValidityMs),
    usedAt: null,
    createdAt: now,
  };
  return { invitation, url: invitationUrl(ctx.config.publicBaseUrl, token) };
}

/**
 * In the sandbox the link also lands in the operator's mailbox (docs/guide/sandbox.md#the-mailbox),
 * never the merchant's: the merchant's API key must not read a link that makes its holder a
 * team member. Elsewhere only the owner sees it.
 */
async function mailLinkInSandbox(ctx: FlowContext, to: string, mail: MailText) {
  if (!ctx.mode.sandboxTools) return;
  await ctx.notifier.send({ merchantId: operatorMailbox, to, ...mail, sentAt: ctx.clock.now() });
}

export async function inviteMember(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  input: { email: string; role: RoleName },
): Promise<{ invitation: InvitationRecord; url: string }> {
  requireTotpStepUp(ctx, principal);
  const email = input.email.trim();
  const link = newLink(ctx, principal, "invite", { email, role: input.role, userId: null });
  await ctx.tx.write(async (trx) => {
    // Only a user of this merchant answers USER_EXISTS: another merchant's says nothing about that tenant
    // (the invitee learns it on accepting: e-mails are unique across merchants).
    if (await emailTakenInMerchant(trx, principal.merchant.id, normalizeEmail(email))) throw userExists(email);
    await insertInvitation(trx, link.invitation);
    await ctx.audit?.(trx, {
      action: "user.invite",
      target: link.invitation.id,
      details: { email, role: input.role },
    });
  });
  await mailLinkInSandbox(
    ctx,
    email,
    invitationMail({
      merchantName: principal.merchant.name,
      inviter: principal.email,
      role: input.role,
      url: link.url,
      expiresAt: link.invitation.expiresAt,
    }),
  );
  return link;
}

export async function cancelMemberInvitation(ctx: FlowContext, principal: DashboardPrincipal, id: string) {
  requireTotpStepUp(ctx, principal);
  await ctx.tx.write(async (trx) => {
    const cancelled = await cancelInvitation(trx, principal.merchant.id, id, ctx.clock.now().toISOString());
    if (!cancelled) throw invitationInvalid();
    await ctx.audit?.(trx, { action: "user.invitation_cancel", target: id, details: { email: cancelled.email } });
  });
}

/**
 * Runs `change` on a user of the merchant in one transaction, the merchant's owners and the user
 * locked; refused when it would leave the merchant without an owner (`keepsOwner` false: the user
 * stops being one). The caller has checked the step-up (the command line needs none).
 */
async function changeMember<T>(
  ctx: FlowContext,
  merchantId: string,
  userId: string,
  keepsOwner: boolean,
  change: (trx: Tx, member: DashboardUserRecord, nowIso: string) => Promise<T>,
): Promise<T> {
  return ctx.tx.write(async (trx) => {
    const owners = await lockOwners(ctx.tx, trx, merchantId);
    const member = await lockTeamMember(ctx.tx, trx, merchantId, userId);
    if (!member) throw teamMemberNotFound(userId);
    if (!keepsOwner && owners.length === 1 && owners[0] === member.id) throw lastOwner();
    return change(trx, member, ctx.clock.now().toISOString());
  });
}

export async function changeMemberRole(
  ctx: FlowContext,
  principal: DashboardPrincipal,
  userId: string,
  role: RoleName,
) {
  requireTotpStepUp(ctx, principal);
  return changeMember(ctx, principal.merchant.id, userId, role === "owner", async (trx, member, nowIso) => {
    await setTeamMemberRole(trx, member.id, role, nowIso);
    await ctx.audit?.(trx, {
      action: "user.role_change",
      target: member.id,
      details: { email: member.email, from: member.role, to: role },
    });
    return { ...member, role };
  });
}

/** Removes a user: their sessions end in the same transaction. */
export async function removeMember(ctx: FlowContext, principal: DashboardPrincipal, userId: string): Promise<void> {
  requireTotpStepUp(ctx, principal);
  await removeUser(ctx, principal.merchant.id, userId);
}

async function removeUser(ctx: FlowContext, merchantId: string, userId: string): Promise<void> {
  await changeMember(ctx, merchantId, userId, false, async (trx, member, nowIso) => {
    await removeTeamMember(trx, member.id, nowIso);
    await ctx.audit?.(trx, { action: "user.remove", target: member.id, details: { email: member.email } });
  });
}

/** The password stops working and the sessions end; a link lets the user set a new one. */
export async function resetMemberPassword(ctx: FlowContext, principal: DashboardPrincipal, userId: string) {
  requireTotpStepUp(ctx, principal);
  const outcome = await changeMember(ctx, principal.merchant.id, userId, true, async (trx, member, nowIso) => {
    const link = newLink(ctx, principal, "password_reset", {
      email: member.email,
      role: member.role,
      userId: member.id,
    });
    await updateDashboardUser(trx, member.id, { passwordHash: "", updatedAt: new Date(nowIso) });
    await endSessionsOfUser(trx, member.id);
    await insertInvitation(trx, link.invitation);
    await ctx.audit?.(trx, { action: "user.password_reset", target: member.id, details: { email: member.email } });
    return { email: member.email, url: link.url, expiresAt: link.invitation.expiresAt };
  });
  await mailLinkInSandbox(
    ctx,
    outcome.email,
    passwordResetMail({ merchantName: principal.merchant.name, url: outcome.url, expiresAt: outcome.expiresAt }),
  );
  return outcome;
}

/** TOTP off, sessions ended; the user enrols again right after their next sign-in. */
export async function resetMemberTotp(ctx: FlowContext, principal: DashboardPrincipal, userId: string) {
  requireTotpStepUp(ctx, principal);
  return resetTotp(ctx, principal.merchant.id, userId);
}

async function resetTotp(ctx: FlowContext, merchantId: string, userId: string) {
  return changeMember(ctx, merchantId, userId, true, async (trx, member, nowIso) => {
    await resetTotpOfUser(trx, member.id, nowIso);
    await ctx.audit?.(trx, { action: "user.totp_reset", target: member.id, details: { email: member.email } });
    return { ...member, totpEnabled: false };
  });
}

/** The hash of a password a user chose, refused when too short (PASSWORD_TOO_WEAK). */
async function newPasswordHash(ctx: FlowContext, password: string): Promise<string> {
  const problem = passwordProblem(password);
  if (problem) throw new RequestRefusal("invalid", problem, { reason: "PASSWORD_TOO_WEAK" });
  return hashPassword(password, ctx.config.passwordHashCost);
}

/** What a link is for, while it is usable. */
export async function invitationFor(ctx: FlowContext, token: string) {
  const invitation = await findInvitation(ctx.tx.db, hashSessionToken(token));
  if (!invitation || !invitationUsable(invitation, ctx.clock.now())) throw invitationInvalid();
  return invitation;
}

/**
 * Uses a link: an invitation creates the user (its TOTP to enroll first), a reset link sets the
 * user's new password; in the one transaction that uses the link. A session starts, except for a
 * user with TOTP (a reset link is no second factor): they sign in with the new password and a code.
 */
export async function acceptInvitation(
  ctx: FlowContext,
  input: { token: string; password: string },
  origin: CallOrigin,
): Promise<NewSession | undefined> {
  const invitation = await invitationFor(ctx, input.token);
  const passwordHash = await newPasswordHash(ctx, input.password);
  const now = ctx.clock.now();
  const invite = invitation.purpose === "invite";
  const user = invite
    ? newUser({
        merchantId: invitation.merchantId,
        email: invitation.email,
        passwordHash,
        role: invitation.role,
        now,
        totpSetupRequired: true,
      })
    : await passwordResetUser(ctx, invitation.userId ?? "", passwordHash);
  const useLink = async (trx: Tx) => {
    if (!(await useInvitation(trx, invitation.tokenHash, now.toISOString()))) throw invitationInvalid();
    if (invite) await insertDashboardUser(trx, user);
    else await updateDashboardUser(trx, user.id, { passwordHash, updatedAt: now });
    await recordAudit(
      ctx,
      trx,
      { merchantId: user.merchantId, userId: user.id, email: user.email, ...origin },
      {
        action: invite ? "user.join" : "user.password_set",
        target: user.id,
        details: { role: user.role },
      },
    );
  };
  try {
    if (user.totpEnabled) {
      await ctx.tx.write(useLink);
      return undefined;
    }
    return await startSession(ctx, user, now, null, origin, useLink);
  } catch (error) {
    if (isUniqueViolation(error)) throw userExists(invitation.email);
    throw error;
  }
}

/** The user a reset link is for, still on the team. */
async function passwordResetUser(ctx: FlowContext, userId: string, passwordHash: string): Promise<DashboardUserRecord> {
  const user = await findDashboardUserById(ctx.tx.db, userId);
  if (!user || user.removedAt !== null) throw invitationInvalid();
  return { ...user, passwordHash };
}

/**
 * `furikomi users …` (docs/reference/cli.md): for the operator, and for recovery when no owner can
 * sign in. No step-up (the command line is the operator's own); each change is in the audit log
 * as done by the command line.
 */
export async function usersOfMerchant(ctx: FlowContext, merchantId: string) {
  return (await listTeamMembers(ctx.tx.db, merchantId)).map((member) => ({
    user_id: member.id,
    email: member.email,
    role: member.role,
    totp_enabled: member.totpEnabled,
    created_at: member.createdAt.toISOString(),
  }));
}

async function userByEmail(ctx: FlowContext, email: string): Promise<DashboardUserRecord> {
  const user = await findDashboardUserByEmail(ctx.tx.db, normalizeEmail(email));
  if (!user) throw teamMemberNotFound(email);
  return user;
}

const asCommandLine = (ctx: FlowContext, merchantId: string) => auditedBy(ctx, { merchantId, ...commandLine });

export async function removeUserByEmail(ctx: FlowContext, email: string) {
  const user = await userByEmail(ctx, email);
  await removeUser(asCommandLine(ctx, user.merchantId), user.merchantId, user.id);
  return { user_id: user.id, email: user.email, removed: true };
}

export async function resetTotpByEmail(ctx: FlowContext, email: string) {
  const user = await userByEmail(ctx, email);
  await resetTotp(asCommandLine(ctx, user.merchantId), user.merchantId, user.id);
  return { user_id: user.id, email: user.email, totp_enabled: false };
}

/** Sets a new password at once (the user's sessions end); TOTP stays as it was. */
export async function resetPasswordByEmail(ctx: FlowContext, email: string, password: string) {
  const passwordHash = await newPasswordHash(ctx, password);
  const user = await userByEmail(ctx, email);
  const audited = asCommandLine(ctx, user.merchantId);
  await changeMember(audited, user.merchantId, user.id, true, async (trx, member, nowIso) => {
    await updateDashboardUser(trx, member.id, { passwordHash, updatedAt: new Date(nowIso) });
    await endSessionsOfUser(trx, member.id);
    await audited.audit?.(trx, { action: "user.password_reset", target: member.id, details: { email: member.email } });
  });
  return { user_id: user.id, email: user.email, password_reset: true };
}
