import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create, type DescField, type DescMessage, type DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { DashboardService } from "../../gen/payments/v1/dashboard_service_pb.js";
import { DashboardRole } from "../../gen/payments/v1/dashboard_roles_pb.js";
import type { RoleName } from "../../src/domain/dashboard-role.js";
import { enrolTotp, signedInUser, type DashboardBrowser } from "../helpers/dashboard.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

/**
 * The auth matrix of the dashboard's roles (docs/guide/dashboard.md#roles): every DashboardService
 * method, called over HTTP by a user of every role. The table below is the specification, written
 * apart from the .proto: a method added without a line here fails, and so does a method whose
 * declared role lets in a role the table keeps out (or keeps out one it lets in).
 */
const leastRole: Record<string, RoleName | "signing in"> = {
  SignIn: "signing in",
  CompleteSignIn: "signing in",
  GetInvitation: "signing in",
  AcceptInvitation: "signing in",
  StartSignUp: "signing in",
  CompleteSignUp: "signing in",
  GetOnboarding: "viewer",
  SaveBusinessDetails: "owner",
  SendOnboardingTestEvent: "owner",
  AcceptMerchantTerms: "owner",
  SubmitOnboarding: "owner",
  SignOut: "viewer",
  GetSession: "viewer",
  BeginTotpEnrollment: "viewer",
  ConfirmTotpEnrollment: "viewer",
  VerifyStepUp: "viewer",
  SearchCustomers: "viewer",
  GetCustomerDetail: "viewer",
  ListCharges: "viewer",
  GetChargeDetail: "viewer",
  ListWebhookEvents: "viewer",
  GetSupportContact: "viewer",
  GetCsvBatch: "viewer",
  ListCsvBatches: "viewer",
  DownloadCsvBatchResult: "viewer",
  GetSandboxBankAccount: "viewer",
  ListZenginFiles: "viewer",
  ListZenginFileRecords: "viewer",
  GetConsignorSettings: "viewer",
  ListConsignorContracts: "viewer",
  RefundCharge: "operator",
  UploadCsvBatch: "operator",
  ConfirmCsvBatch: "operator",
  CreateCsvBatchChallenge: "operator",
  ConfigureSandboxBankAccount: "operator",
  ListSandboxMailbox: "operator",
  ListBillingPlans: "viewer",
  ListBillingSubscriptions: "viewer",
  GetBillingSubscription: "viewer",
  GetDebitCalendar: "viewer",
  ListRedebitQueue: "viewer",
  CreateBillingPlan: "operator",
  UpdateBillingPlanPrice: "operator",
  CreateBillingSubscription: "operator",
  PauseBillingSubscription: "operator",
  ResumeBillingSubscription: "operator",
  CancelBillingSubscription: "operator",
  UploadSubscriptionImport: "operator",
  CreateSubscriptionImportChallenge: "operator",
  ConfirmSubscriptionImport: "operator",
  ListSubscriptionImportRows: "viewer",
  GetSubscriptionImport: "viewer",
  ListSubscriptionImports: "viewer",
  DownloadSubscriptionImportResult: "viewer",
  RedeliverWebhookEvent: "admin",
  ListApiKeys: "admin",
  CreateApiKey: "admin",
  RevokeApiKey: "admin",
  GetWebhookSettings: "admin",
  UpdateWebhookSettings: "admin",
  UpdateSupportContact: "admin",
  UpdateConsignorSettings: "admin",
  UpdateConsignorContract: "admin",
  ExportCharges: "viewer",
  ListCsvBatchRows: "viewer",
  SetSandboxBankMaintenance: "admin",
  ListAuditLog: "admin",
  ExportAuditLog: "admin",
  SetTotpRequirement: "owner",
  ListTeamMembers: "owner",
  InviteTeamMember: "owner",
  CancelInvitation: "owner",
  ChangeTeamMemberRole: "owner",
  RemoveTeamMember: "owner",
  ResetTeamMemberPassword: "owner",
  ResetTeamMemberTotp: "owner",
};

const roles: RoleName[] = ["viewer", "operator", "admin", "owner"];
const allowed = (role: RoleName, least: RoleName | "signing in") =>
  least === "signing in" || roles.indexOf(role) >= roles.indexOf(least);

/** A plausible request: strings of the shape their validation wants, aimed at nothing that exists. */
function plausible(desc: DescMessage, n: number): Record<string, unknown> {
  const message: Record<string, unknown> = {};
  for (const field of desc.fields) {
    if (field.fieldKind === "message" && !field.message.typeName.startsWith("google.protobuf."))
      message[field.localName] = plausible(field.message, n);
    else if (field.fieldKind === "scalar") {
      const value = scalarFor(field, n);
      if (value !== undefined) message[field.localName] = value;
    } else if (field.fieldKind === "enum") message[field.localName] = DashboardRole.VIEWER;
  }
  return message;
}

function scalarFor(field: DescField, n: number): unknown {
  if (field.name.includes("email")) return `matrix${n}@example.jp`;
  if (field.name === "password") return "a long enough password";
  if (field.name === "code") return "000000";
  if (field.name.endsWith("id") || field.name === "token" || field.name === "sign_in_token") return `unknown-${n}`;
  if (field.name === "price" || field.name === "amount") return 100;
  return undefined;
}

/** How a call ended: nothing refused it, or its code and ErrorInfo reason. */
async function outcome(user: DashboardBrowser, method: DescMethod, n: number): Promise<string> {
  const client = user.client as unknown as Record<string, (req: unknown) => unknown>;
  const request = create(method.input, plausible(method.input, n) as never);
  try {
    const answer = client[method.localName](request);
    if (method.methodKind === "server_streaming") for await (const _ of answer as AsyncIterable<unknown>);
    else await answer;
    return "ok";
  } catch (error) {
    const e = ConnectError.from(error);
    return `${Code[e.code]} ${e.findDetails(ErrorInfoSchema)[0]?.reason ?? e.rawMessage}`;
  }
}

let server: TestServer;
const users = new Map<RoleName, DashboardBrowser>();

beforeAll(async () => {
  server = await startTestServer({ env: { SIGN_IN_RATE_LIMIT_PER_ADDRESS: "1000" } });
  for (const role of roles) {
    const user = await signedInUser(server, { role });
    // Enrolled and stepped up (the enrolment's code counts), so step-up refuses nothing here.
    await enrolTotp(server, user);
    users.set(role, user);
  }
});
afterAll(async () => server?.stop());

describe("the dashboard's roles, every method × every role over the wire", () => {
  it("has a line in the table for every method, and no line for a method that does not exist", () => {
    expect(DashboardService.methods.map((m) => m.name).sort()).toEqual(Object.keys(leastRole).sort());
  });

  it("lets each role call what its role allows and refuses the rest with permission_denied", async () => {
    // SignOut last: it ends the session the other calls use.
    const methods = [...DashboardService.methods].sort(
      (a, b) => Number(a.name === "SignOut") - Number(b.name === "SignOut"),
    );
    const matrix: string[] = [];
    let n = 0;
    for (const method of methods) {
      for (const role of roles) {
        const answer = await outcome(users.get(role)!, method, ++n);
        const refused = answer === "PermissionDenied ROLE_FORBIDDEN";
        matrix.push(`${method.name} × ${role}: ${answer}`);
        expect(refused, `${method.name} × ${role}: ${answer}`).toBe(!allowed(role, leastRole[method.name]));
        // An allowed call is never refused for its role in any other way either.
        if (!refused) expect(answer, `${method.name} × ${role}`).not.toMatch(/^PermissionDenied/);
      }
    }
    expect(matrix).toHaveLength(DashboardService.methods.length * roles.length);
    const refusals = matrix.filter((line) => line.endsWith("PermissionDenied ROLE_FORBIDDEN")).length;
    // The viewer is refused what needs an operator, admin or owner; the operator what needs an admin or owner; …
    const count = (least: RoleName) => Object.values(leastRole).filter((r) => r === least).length;
    expect(refusals).toBe(count("operator") + 2 * count("admin") + 3 * count("owner"));
  });
});
