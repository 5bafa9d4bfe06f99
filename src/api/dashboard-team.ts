import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  AuditLogEntrySchema,
  InvitationSchema,
  TeamMemberSchema,
  type AuditLogFilter,
  type DashboardUser,
  type DashboardService,
} from "../../gen/payments/v1/dashboard_service_pb.js";
import { auditPeriod, userAgentLength, type AuditEntry, type AuditFilter } from "../domain/audit.js";
import { roleEnum, roleName, type RoleName } from "../domain/dashboard-role.js";
import { auditedBy, auditLogCsv, auditLogPage } from "../flows/audit.js";
import type { CallOrigin, NewSession } from "../flows/dashboard-auth.js";
import type { FlowContext } from "../flows/flow-context.js";
import {
  acceptInvitation,
  cancelMemberInvitation,
  changeMemberRole,
  invitationFor,
  inviteMember,
  removeMember,
  resetMemberPassword,
  resetMemberTotp,
  teamOf,
} from "../flows/team.js";
import type { TeamMember } from "../domain/dashboard-user.js";
import type { InvitationRecord } from "../domain/invitation.js";
import { dashboardPrincipalOf } from "./dashboard-session.js";
import { clientAddressKey } from "./request-context.js";

type TeamMethods =
  | "listTeamMembers"
  | "inviteTeamMember"
  | "cancelInvitation"
  | "changeTeamMemberRole"
  | "removeTeamMember"
  | "resetTeamMemberPassword"
  | "resetTeamMemberTotp"
  | "getInvitation"
  | "acceptInvitation"
  | "listAuditLog"
  | "exportAuditLog";

/** Where a call came from: the connection's address and the user agent it sent (cut to 512 characters). */
export function callOrigin(context: HandlerContext): CallOrigin {
  return {
    clientAddress: context.values.get(clientAddressKey),
    userAgent: (context.requestHeader.get("user-agent") ?? "").slice(0, userAgentLength),
  };
}

/** The flow context of the signed-in person making this call: what its flows change is audited. */
export function auditedContext(ctx: FlowContext, context: HandlerContext): FlowContext {
  const principal = dashboardPrincipalOf(context);
  return auditedBy(ctx, {
    merchantId: principal.merchant.id,
    userId: principal.userId,
    email: principal.email,
    ...callOrigin(context),
  });
}

/** The team and the audit log (docs/guide/dashboard.md#the-team); spread into DashboardService. */
export function createTeamHandlers(
  ctx: FlowContext,
  sessionStarted: (session: NewSession, context: HandlerContext) => { user: DashboardUser; csrfToken: string },
): Pick<ServiceImpl<typeof DashboardService>, TeamMethods> {
  const owner = (context: HandlerContext) => ({
    ctx: auditedContext(ctx, context),
    principal: dashboardPrincipalOf(context),
  });
  return {
    async listTeamMembers(_req, context) {
      const team = await teamOf(ctx, dashboardPrincipalOf(context).merchant.id);
      return { members: team.members.map(encodeMember), invitations: team.invitations.map(encodeInvitation) };
    },
    async inviteTeamMember(req, context) {
      const { ctx: audited, principal } = owner(context);
      const { invitation, url } = await inviteMember(audited, principal, { email: req.email, role: roleOf(req.role) });
      return { invitation: encodeInvitation(invitation), url };
    },
    async cancelInvitation(req, context) {
      const { ctx: audited, principal } = owner(context);
      await cancelMemberInvitation(audited, principal, req.id);
      return {};
    },
    async changeTeamMemberRole(req, context) {
      const { ctx: audited, principal } = owner(context);
      return { member: encodeMember(await changeMemberRole(audited, principal, req.userId, roleOf(req.role))) };
    },
    async removeTeamMember(req, context) {
      const { ctx: audited, principal } = owner(context);
      await removeMember(audited, principal, req.userId);
      return {};
    },
    async resetTeamMemberPassword(req, context) {
      const { ctx: audited, principal } = owner(context);
      const reset = await resetMemberPassword(audited, principal, req.userId);
      return { url: reset.url, expiresAt: timestampFromDate(reset.expiresAt) };
    },
    async resetTeamMemberTotp(req, context) {
      const { ctx: audited, principal } = owner(context);
      return { member: encodeMember(await resetMemberTotp(audited, principal, req.userId)) };
    },
    async getInvitation(req) {
      const invitation = await invitationFor(ctx, req.token);
      return {
        email: invitation.email,
        merchantName: invitation.merchantName,
        role: roleEnum(invitation.role),
        passwordReset: invitation.purpose === "password_reset",
        expiresAt: timestampFromDate(invitation.expiresAt),
      };
    },
    async acceptInvitation(req, context) {
      const session = await acceptInvitation(ctx, { token: req.token, password: req.password }, callOrigin(context));
      // A user with TOTP signs in with the new password and a code: no session from the link alone.
      return session ? sessionStarted(session, context) : { csrfToken: "" };
    },
    async listAuditLog(req, context) {
      const page = await auditLogPage(ctx, dashboardPrincipalOf(context).merchant.id, filterOf(req.filter), {
        size: req.pageSize,
        token: req.pageToken,
      });
      return { entries: page.entries.map(encodeEntry), nextPageToken: page.nextPageToken };
    },
    exportAuditLog(req, context) {
      // The filter is checked before the stream starts, so a bad one is refused as a call is.
      const filter = checkedFilter(filterOf(req.filter));
      const merchantId = dashboardPrincipalOf(context).merchant.id;
      return (async function* () {
        const encoder = new TextEncoder();
        for await (const chunk of auditLogCsv(ctx, merchantId, filter)) yield { data: encoder.encode(chunk) };
      })();
    },
  };
}

/** Validation (in the .proto) refuses an unspecified role before the handler runs. */
function roleOf(role: number): RoleName {
  return roleName(role) ?? "viewer";
}

/** The filter, its dates checked (auditPeriod refuses a date that is not one). */
function checkedFilter(filter: AuditFilter): AuditFilter {
  auditPeriod(filter);
  return filter;
}

function filterOf(filter: AuditLogFilter | undefined): AuditFilter {
  return {
    email: filter?.email ?? "",
    action: filter?.action ?? "",
    fromDate: filter?.fromDate ?? "",
    toDate: filter?.toDate ?? "",
  };
}

function encodeMember(member: TeamMember) {
  return create(TeamMemberSchema, {
    userId: member.id,
    email: member.email,
    role: roleEnum(member.role),
    totpEnabled: member.totpEnabled,
    createdAt: timestampFromDate(member.createdAt),
  });
}

function encodeInvitation(invitation: InvitationRecord) {
  return create(InvitationSchema, {
    id: invitation.id,
    email: invitation.email,
    role: roleEnum(invitation.role),
    expiresAt: timestampFromDate(invitation.expiresAt),
    invitedBy: invitation.createdBy,
  });
}

function encodeEntry(entry: AuditEntry) {
  return create(AuditLogEntrySchema, {
    id: entry.id,
    at: timestampFromDate(entry.at),
    userId: entry.userId,
    email: entry.email,
    action: entry.action,
    target: entry.target,
    detailsJson: JSON.stringify(entry.details ?? {}),
    clientAddress: entry.clientAddress,
    userAgent: entry.userAgent,
  });
}
