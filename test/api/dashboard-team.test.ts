import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code } from "@connectrpc/connect";
import { parse } from "csv-parse/sync";
import { DashboardRole } from "../../gen/payments/v1/dashboard_roles_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { readOperatorMailbox } from "../../src/flows/sandbox.js";
import { jstDateOf, addDays } from "../../src/domain/jst.js";
import { insertAuditEntry } from "../../src/storage/audit-log.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import {
  dashboardBrowser,
  dashboardPassword,
  enrolTotp,
  nextTotpCode,
  refusal,
  signedInUser,
  signedInWithTotp,
  wrongTotpCodes,
  type DashboardBrowser,
} from "../helpers/dashboard.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// The team (docs/guide/dashboard.md#the-team) and the audit log (docs/guide/dashboard.md#the-audit-log),
// over HTTP.

let server: TestServer;
let owner: DashboardBrowser & { email: string; userId: string };
let ownerSecret: string;

const newPassword = "another long passphrase";
const tokenOf = (url: string) => url.split("/invitation/")[1];

/** The owner's session stepped up with a fresh code (team changes need one from the last 5 minutes). */
async function steppedUp(): Promise<void> {
  await owner.client.verifyStepUp({ code: nextTotpCode(server, ownerSecret) });
}

/** Invites `email` as `role` and has the invitee accept: their signed-in browser (TOTP not yet enrolled). */
async function invitedUser(email: string, role: DashboardRole): Promise<DashboardBrowser & { userId: string }> {
  await steppedUp();
  const { url } = await owner.client.inviteTeamMember({ email, role });
  const invitee = dashboardBrowser(server);
  const { user } = await invitee.client.acceptInvitation({ token: tokenOf(url), password: dashboardPassword });
  const { members } = await owner.client.listTeamMembers({});
  return Object.assign(invitee, { userId: members.find((m) => m.email === user?.email)!.userId });
}

beforeAll(async () => {
  server = await startTestServer({ env: { SIGN_IN_RATE_LIMIT_PER_ADDRESS: "1000" } });
  owner = await signedInUser(server);
  ownerSecret = await enrolTotp(server, owner);
});
afterAll(async () => server?.stop());

describe("the team", () => {
  it("invites a user: a link shown once and in the operator's sandbox mailbox, a password, then TOTP before anything else", async () => {
    await steppedUp();
    const email = "kana@example.jp";
    const invited = await owner.client.inviteTeamMember({ email, role: DashboardRole.OPERATOR });
    expect(invited.url).toBe(`${server.ctx.config.publicBaseUrl}/dashboard/#/invitation/${tokenOf(invited.url)}`);
    expect(tokenOf(invited.url)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(invited.invitation).toMatchObject({ email, role: DashboardRole.OPERATOR, invitedBy: owner.email });
    // In the operator's sandbox mailbox, never the merchant's: its sk_test key must not read a link that makes a member.
    expect((await owner.client.listSandboxMailbox({ email })).messages).toEqual([]);
    expect((await server.client(SandboxService).listMailbox({ email })).messages).toEqual([]);
    // In Japanese: who invited whom to which merchant, as what, what to do; the link on a line of its own.
    const mails = await readOperatorMailbox(server.ctx, email);
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toBe("【furikomi】Test Shop のダッシュボードへの招待");
    const lines = mails[0].body.split("\n");
    expect(lines).toContain(invited.url);
    expect(mails[0].body).toContain(
      `${owner.email} さんから、Test Shop の furikomi ダッシュボードに「オペレーター」として招待されました。`,
    );
    expect(mails[0].body).toContain("最初に2段階認証");
    expect((await owner.client.listTeamMembers({})).invitations.map((i) => i.email)).toEqual([email]);
    // Only the hash is kept.
    const stored = await server.ctx.tx.db.selectFrom("dashboard_invitations").selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(tokenOf(invited.url));

    const invitee = dashboardBrowser(server);
    const token = tokenOf(invited.url);
    expect(await invitee.client.getInvitation({ token })).toMatchObject({
      email,
      merchantName: "Test Shop",
      role: DashboardRole.OPERATOR,
      passwordReset: false,
    });
    expect((await refusal(invitee.client.acceptInvitation({ token, password: "short" }))).reason).toBe(
      "PASSWORD_TOO_WEAK",
    );
    const accepted = await invitee.client.acceptInvitation({ token, password: dashboardPassword });
    expect(accepted.user).toMatchObject({ email, role: DashboardRole.OPERATOR, totpSetupRequired: true });
    expect((await refusal(invitee.client.searchCustomers({}))).reason).toBe("TOTP_ENROLLMENT_REQUIRED");
    await enrolTotp(server, invitee);
    await expect(invitee.client.searchCustomers({})).resolves.toBeDefined();
    expect((await invitee.client.getSession({})).user?.totpSetupRequired).toBe(false);

    // Single use; and the invitation is no longer pending.
    const again = await refusal(dashboardBrowser(server).client.acceptInvitation({ token, password: newPassword }));
    expect([again.code, again.reason]).toEqual([Code.NotFound, "INVITATION_INVALID"]);
    expect((await owner.client.listTeamMembers({})).invitations).toEqual([]);
    expect((await refusal(owner.client.inviteTeamMember({ email, role: DashboardRole.VIEWER }))).reason).toBe(
      "USER_EXISTS",
    );
  });

  it("lets an invitation expire after 72 hours, and be cancelled", async () => {
    await steppedUp();
    const late = await owner.client.inviteTeamMember({ email: "late@example.jp", role: DashboardRole.VIEWER });
    const cancelled = await owner.client.inviteTeamMember({ email: "never@example.jp", role: DashboardRole.VIEWER });
    await owner.client.cancelInvitation({ id: cancelled.invitation!.id });
    expect(
      (await refusal(dashboardBrowser(server).client.getInvitation({ token: tokenOf(cancelled.url) }))).reason,
    ).toBe("INVITATION_INVALID");
    server.clock.advance(72 * 3_600_000 + 1);
    const expired = await refusal(
      dashboardBrowser(server).client.acceptInvitation({ token: tokenOf(late.url), password: dashboardPassword }),
    );
    expect(expired.reason).toBe("INVITATION_INVALID");
    // The owner's session went idle meanwhile.
    owner = Object.assign(await signedInWithTotp(server, owner.email, ownerSecret), {
      email: owner.email,
      userId: owner.userId,
    });
  });

  it("needs an owner with a recent code for team changes", async () => {
    server.clock.advance(6 * 60_000);
    await owner.client.getSession({});
    const refused = await refusal(owner.client.inviteTeamMember({ email: "x@example.jp", role: DashboardRole.VIEWER }));
    expect(refused.reason).toBe("STEP_UP_REQUIRED");
    const noTotp = await signedInUser(server, { role: "owner" });
    expect(
      (await refusal(noTotp.client.inviteTeamMember({ email: "x@example.jp", role: DashboardRole.VIEWER }))).reason,
    ).toBe("TOTP_NOT_ENABLED");
  });

  it("removes a user: their session ends at once and they cannot sign in again", async () => {
    const viewer = await invitedUser("leaving@example.jp", DashboardRole.VIEWER);
    await expect(viewer.client.getSession({})).resolves.toBeDefined();
    await steppedUp();
    await owner.client.removeTeamMember({ userId: viewer.userId });
    expect((await refusal(viewer.client.getSession({}))).reason).toBe("SESSION_REQUIRED");
    const signIn = await refusal(
      dashboardBrowser(server).client.signIn({ email: "leaving@example.jp", password: dashboardPassword }),
    );
    expect(signIn.reason).toBe("SIGN_IN_FAILED");
    expect((await owner.client.listTeamMembers({})).members.map((m) => m.email)).not.toContain("leaving@example.jp");
    // The e-mail is free again.
    await expect(
      owner.client.inviteTeamMember({ email: "leaving@example.jp", role: DashboardRole.VIEWER }),
    ).resolves.toBeDefined();
  });

  it("keeps an owner: the last one can be neither removed nor demoted", async () => {
    const other = await server.newMerchant("Solo Shop");
    const solo = await signedInUser(server, { merchantId: other.merchant_id });
    const secret = await enrolTotp(server, solo);
    const last = await refusal(solo.client.removeTeamMember({ userId: solo.userId }));
    expect([last.code, last.reason]).toEqual([Code.FailedPrecondition, "LAST_OWNER"]);
    await solo.client.verifyStepUp({ code: nextTotpCode(server, secret) });
    expect(
      (await refusal(solo.client.changeTeamMemberRole({ userId: solo.userId, role: DashboardRole.ADMIN }))).reason,
    ).toBe("LAST_OWNER");
    // Another merchant's user is not on this team.
    const foreign = await refusal(solo.client.removeTeamMember({ userId: owner.userId }));
    expect([foreign.code, foreign.reason]).toEqual([Code.NotFound, "TEAM_MEMBER_NOT_FOUND"]);
  });

  it("changes a role: the user's sessions end, and the new role holds from their next sign-in", async () => {
    const user = await invitedUser("promoted@example.jp", DashboardRole.VIEWER);
    const secret = await enrolTotp(server, user);
    expect((await refusal(user.client.listApiKeys({}))).reason).toBe("ROLE_FORBIDDEN");
    await steppedUp();
    const { member } = await owner.client.changeTeamMemberRole({ userId: user.userId, role: DashboardRole.ADMIN });
    expect(member?.role).toBe(DashboardRole.ADMIN);
    expect((await refusal(user.client.listApiKeys({}))).reason).toBe("SESSION_REQUIRED");
    const again = await signedInWithTotp(server, "promoted@example.jp", secret);
    await expect(again.client.listApiKeys({})).resolves.toBeDefined();
  });

  it("resets a password: the old one stops working, sessions end, the link sets a new one", async () => {
    const user = await invitedUser("forgetful@example.jp", DashboardRole.OPERATOR);
    await steppedUp();
    const reset = await owner.client.resetTeamMemberPassword({ userId: user.userId });
    expect((await refusal(user.client.getSession({}))).reason).toBe("SESSION_REQUIRED");
    expect(
      (
        await refusal(
          dashboardBrowser(server).client.signIn({ email: "forgetful@example.jp", password: dashboardPassword }),
        )
      ).reason,
    ).toBe("SIGN_IN_FAILED");
    const browser = dashboardBrowser(server);
    expect((await browser.client.getInvitation({ token: tokenOf(reset.url) })).passwordReset).toBe(true);
    const accepted = await browser.client.acceptInvitation({ token: tokenOf(reset.url), password: newPassword });
    // Invited but never enrolled: the link starts a session, in which TOTP comes first.
    expect(accepted.user?.email).toBe("forgetful@example.jp");
    await expect(
      dashboardBrowser(server).client.signIn({ email: "forgetful@example.jp", password: newPassword }),
    ).resolves.toBeDefined();
  });

  it("gives a user with TOTP no session from a reset link: the new password and a code sign in", async () => {
    const user = await invitedUser("careful@example.jp", DashboardRole.OPERATOR);
    const secret = await enrolTotp(server, user);
    await steppedUp();
    const reset = await owner.client.resetTeamMemberPassword({ userId: user.userId });
    const browser = dashboardBrowser(server);
    const accepted = await browser.client.acceptInvitation({ token: tokenOf(reset.url), password: newPassword });
    expect([accepted.user, browser.cookies.has("furikomi_session")]).toEqual([undefined, false]);
    const first = await browser.client.signIn({ email: "careful@example.jp", password: newPassword });
    expect(first.totpRequired).toBe(true);
    await browser.client.completeSignIn({ signInToken: first.signInToken, code: nextTotpCode(server, secret) });
    await expect(browser.client.searchCustomers({})).resolves.toBeDefined();
  });

  it("resets TOTP: sessions end, and the user enrols again after signing in", async () => {
    const user = await invitedUser("lostphone@example.jp", DashboardRole.OPERATOR);
    await enrolTotp(server, user);
    await steppedUp();
    const { member } = await owner.client.resetTeamMemberTotp({ userId: user.userId });
    expect(member?.totpEnabled).toBe(false);
    expect((await refusal(user.client.getSession({}))).reason).toBe("SESSION_REQUIRED");
    const browser = dashboardBrowser(server);
    const signedIn = await browser.client.signIn({ email: "lostphone@example.jp", password: dashboardPassword });
    expect([signedIn.totpRequired, signedIn.user?.totpSetupRequired]).toEqual([false, true]);
    expect((await refusal(browser.client.listCharges({}))).reason).toBe("TOTP_ENROLLMENT_REQUIRED");
  });
});

describe("other tenants stay unseen", () => {
  it("invites an e-mail of another merchant's user without USER_EXISTS; only the invitee learns it is taken", async () => {
    const elsewhere = await server.newMerchant("Elsewhere");
    const theirs = await signedInUser(server, { merchantId: elsewhere.merchant_id, email: "theirs@example.jp" });
    await steppedUp();
    const invited = await owner.client.inviteTeamMember({ email: theirs.email, role: DashboardRole.VIEWER });
    expect(invited.invitation?.email).toBe(theirs.email);
    const accepted = await refusal(
      dashboardBrowser(server).client.acceptInvitation({ token: tokenOf(invited.url), password: dashboardPassword }),
    );
    expect(accepted.reason).toBe("USER_EXISTS");
  });
});

describe("the audit log", () => {
  it("records a wrong step-up code like a wrong sign-in code", async () => {
    const [wrong] = wrongTotpCodes(server, ownerSecret);
    expect((await refusal(owner.client.verifyStepUp({ code: wrong }))).reason).toBe("TOTP_CODE_INVALID");
    const { entries } = await owner.client.listAuditLog({ pageSize: 1 });
    expect(entries[0]).toMatchObject({ action: "sign_in.failed", email: owner.email });
    expect(JSON.parse(entries[0].detailsJson)).toEqual({ step: "step_up" });
    await steppedUp();
  });

  it("records who did what, when and from where, in the transaction of each change", async () => {
    const operator = await invitedUser("auditee@example.jp", DashboardRole.OPERATOR);
    const operatorSecret = await enrolTotp(server, operator);
    await refusal(
      dashboardBrowser(server).client.signIn({ email: "auditee@example.jp", password: "wrong password!!" }),
    );
    const { customerId } = await seedActiveCustomer(server, { email: "audited-customer@example.jp" });
    const { charge } = await server
      .client(PaymentService)
      .createOffSessionPayment({ customerId, charge: { price: 3000, description: "box" } });
    await operator.client.refundCharge({ refund: { chargeId: charge!.chargeId, amount: 500, reason: "damaged" } });
    // A refund refused rolls back, and with it its entry.
    await refusal(operator.client.refundCharge({ refund: { chargeId: charge!.chargeId, amount: 1_000_000 } }));
    const uploaded = await operator.client.uploadCsvBatch({
      fileName: "march.csv",
      content: new TextEncoder().encode(
        "customer_email,customer_id,price,description,metadata\r\naudited-customer@example.jp,,1200,box,\r\n",
      ),
    });
    await operator.client.confirmCsvBatch({
      batchId: uploaded.batchId,
      challengeId: uploaded.challengeId,
      code: nextTotpCode(server, operatorSecret),
    });
    await steppedUp();
    const { key } = await owner.client.createApiKey({});
    await owner.client.revokeApiKey({ id: key!.id });
    await owner.client.updateWebhookSettings({ url: "", rotateSecret: true });
    await owner.client.updateSupportContact({ contact: { email: "help@example.jp", phone: "", url: "" } });

    const { entries } = await owner.client.listAuditLog({ filter: { email: "AUDITEE@example.jp" } });
    expect(entries.map((e) => e.action).reverse()).toEqual([
      "user.join",
      "sign_in",
      "totp.enrol",
      "sign_in.failed",
      "refund.create",
      "csv_batch.upload",
      "csv_batch.confirm",
    ]);
    expect(entries[0]).toMatchObject({ action: "csv_batch.confirm", target: uploaded.batchId });
    expect(JSON.parse(entries[1].detailsJson)).toEqual({ file_name: "march.csv", rows: 1 });
    const refund = entries[2];
    expect(refund).toMatchObject({ userId: operator.userId, email: "auditee@example.jp", target: charge!.chargeId });
    expect(JSON.parse(refund.detailsJson)).toMatchObject({ amount: 500, reason: "damaged" });
    expect(refund.clientAddress).toMatch(/127\.0\.0\.1/);
    expect(refund.userAgent).toMatch(/connect-es/);
    expect(refund.at).toBeDefined();

    const ownerActions = (
      await owner.client.listAuditLog({ filter: { email: owner.email }, pageSize: 200 })
    ).entries.map((e) => e.action);
    for (const action of [
      "sign_in",
      "totp.enrol",
      "user.invite",
      "user.remove",
      "user.role_change",
      "user.password_reset",
      "user.totp_reset",
      "user.invitation_cancel",
      "api_key.create",
      "api_key.revoke",
      "webhook.update",
      "support_contact.update",
    ])
      expect(ownerActions, action).toContain(action);
    expect(ownerActions).not.toContain("refund.create");
  });

  it("filters by action group and JST date, pages, and exports the same entries as CSV", async () => {
    const users = await owner.client.listAuditLog({ filter: { action: "user" }, pageSize: 200 });
    expect(users.entries.length).toBeGreaterThan(5);
    expect(users.entries.every((e) => e.action.startsWith("user."))).toBe(true);
    const today = jstDateOf(server.clock.now());
    const none = await owner.client.listAuditLog({ filter: { toDate: addDays(today, -5) } });
    expect(none.entries).toEqual([]);
    const fromToday = await owner.client.listAuditLog({ filter: { fromDate: today, toDate: today }, pageSize: 200 });
    const fromThreeDaysAgo = await owner.client.listAuditLog({
      filter: { fromDate: addDays(today, -3) },
      pageSize: 200,
    });
    expect(fromToday.entries.length).toBeGreaterThan(0);
    expect(fromThreeDaysAgo.entries.length).toBeGreaterThan(fromToday.entries.length);
    const firstPage = await owner.client.listAuditLog({ filter: { action: "user" }, pageSize: 2 });
    const secondPage = await owner.client.listAuditLog({
      filter: { action: "user" },
      pageSize: 2,
      pageToken: firstPage.nextPageToken,
    });
    expect([...firstPage.entries, ...secondPage.entries].map((e) => e.id)).toEqual(
      users.entries.slice(0, 4).map((e) => e.id),
    );

    const chunks: Uint8Array[] = [];
    for await (const chunk of owner.client.exportAuditLog({ filter: { action: "user" } })) chunks.push(chunk.data);
    const text = Buffer.concat(chunks).toString("utf8");
    expect(text.startsWith("\uFEFFat,email,user_id,action,target,details,client_address,user_agent\r\n")).toBe(true);
    const rows = parse(text, { bom: true, columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => r.action)).toEqual(users.entries.map((e) => e.action));
    expect(JSON.parse(rows[0].details)).toEqual(JSON.parse(users.entries[0].detailsJson));

    const bad = await refusal(
      (async () => {
        for await (const _ of owner.client.exportAuditLog({ filter: { fromDate: "2026-02-30" } }));
      })(),
    );
    expect(bad.reason).toBe("AUDIT_FILTER_INVALID");
  });

  it("is append only: the database refuses to change an entry, or delete one younger than 400 days", async () => {
    const db = server.ctx.tx.db;
    await expect(db.updateTable("audit_log").set({ action: "sign_in" }).execute()).rejects.toThrow(/append only/);
    await expect(db.deleteFrom("audit_log").execute()).rejects.toThrow(/400 days/);
    const old = new Date(Date.now() - 401 * 24 * 3_600_000);
    await insertAuditEntry(db, {
      id: "aud-old",
      merchantId: server.merchant.merchant_id,
      at: old,
      userId: "",
      email: "old@example.jp",
      clientAddress: "",
      userAgent: "",
      action: "sign_in",
      target: "",
    });
    await db.deleteFrom("audit_log").where("id", "=", "aud-old").execute();
    expect(await db.selectFrom("audit_log").select("id").where("id", "=", "aud-old").execute()).toEqual([]);
  });
});
