import { RequestRefusal } from "./request-refusal.js";
import { limits } from "./limits.js";

/**
 * Team invitations and password-reset links (docs/guide/dashboard.md#the-team): a random token in a
 * link, shown once to the owner who made it, stored only as its hash, usable once within 72 hours.
 */
export const invitationValidityMs = limits.invitationValidityMs;

export type InvitationPurpose = "invite" | "password_reset";

/** The dashboard page that uses a link (the token in the fragment: it never reaches a server log). */
export function invitationUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/dashboard/#/invitation/${token}`;
}

export function invitationUsable(invitation: { used_at: string | null; expires_at: string }, now: Date): boolean {
  return invitation.used_at === null && now < new Date(invitation.expires_at);
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
