import type { RoleName } from "./dashboard-role.js";
import { RequestRefusal } from "./request-refusal.js";
import { limits } from "./limits.js";

/**
 * Team invitations and password-reset links (docs/guide/dashboard.md#the-team): a random token in a
 * link, shown once to the owner who made it, stored only as its hash, usable once within 72 hours.
 */
export const invitationValidityMs = limits.invitationValidityMs;

export type InvitationPurpose = "invite" | "password_reset";

/** A link as stored: only its token's hash is kept. */
export interface InvitationRecord {
  tokenHash: string;
  id: string;
  merchantId: string;
  purpose: InvitationPurpose;
  email: string;
  role: RoleName;
  /** The user a password-reset link is for (null for an invitation). */
  userId: string | null;
  /** The e-mail of the owner who made it. */
  createdBy: string;
  expiresAt: Date;
  usedAt: Date | null;
  createdAt: Date;
}

/** The dashboard page that uses a link (the token in the fragment: it never reaches a server log). */
export function invitationUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/dashboard/#/invitation/${token}`;
}

export function invitationUsable(invitation: Pick<InvitationRecord, "usedAt" | "expiresAt">, now: Date): boolean {
  return invitation.usedAt === null && now < invitation.expiresAt;
}

export const invitationInvalid = () =>
  new RequestRefusal("not_found", "this link is unknown, used, cancelled or expired", { reason: "INVITATION_INVALID" });

export const teamMemberNotFound = (userId: string) =>
  new RequestRefusal("not_found", `no user ${userId} in this merchant's team`, { reason: "TEAM_MEMBER_NOT_FOUND" });

export const lastOwner = () =>
  new RequestRefusal("precondition", "the merchant must keep an owner: make another user owner first", {
    reason: "LAST_OWNER",
  });

export const userExists = (email: string) =>
  new RequestRefusal("conflict", `a dashboard user with e-mail ${email} already exists`, { reason: "USER_EXISTS" });
