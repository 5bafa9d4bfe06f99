import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code } from "@connectrpc/connect";
import { hashRecoveryCode } from "../../src/domain/dashboard-session.js";
import {
  dashboardBrowser,
  dashboardPassword,
  enrolTotp,
  nextTotpCode,
  refusal,
  signedInUser,
  signedInWithTotp,
  totpCodeAt,
  wrongTotpCodes,
} from "../helpers/dashboard.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

let server: TestServer;
beforeAll(async () => {
  // Every sign-in here comes from one address: its rate limit is pinned in dashboard-sign-in.test.ts.
  server = await startTestServer({
    env: { WORKERS: "off", API_KEY_CACHE_MS: "0", SIGN_IN_RATE_LIMIT_PER_ADDRESS: "0" },
  });
});
afterAll(async () => server?.stop());

/** A user of a merchant of its own, signed in, with TOTP enrolled: its e-mail, secret and recovery codes. */
async function totpUser(merchantId = server.merchant.merchant_id) {
  const user = await signedInUser(server, { merchantId });
  const { secret } = await user.client.beginTotpEnrollment({});
  const { recoveryCodes } = await user.client.confirmTotpEnrollment({ code: totpCodeAt(secret, server.clock.now()) });
  return Object.assign(user, { secret, recoveryCodes });
}

describe("sign-in of a user with TOTP: the password, then a code", () => {
  it("answers no session for the password alone; the code completes it, once", async () => {
    const { email, secret } = await totpUser();
    const browser = dashboardBrowser(server);
    const first = await browser.client.signIn({ email, password: dashboardPassword });
    expect(first).toMatchObject({ totpRequired: true, csrfToken: "" });
    expect(first.user).toBeUndefined();
    expect(first.signInToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(browser.cookies.size).toBe(0);
    expect(await refusal(browser.client.getSession({}))).toMatchObject({ reason: "SESSION_REQUIRED" });
    expect(
      await refusal(
        browser.client.completeSignIn({ signInToken: first.signInToken, code: wrongTotpCodes(server, secret)[0] }),
      ),
    ).toMatchObject({ code: Code.InvalidArgument, reason: "TOTP_CODE_INVALID" });
    const code = nextTotpCode(server, secret);
    const done = await browser.client.completeSignIn({ signInToken: first.signInToken, code });
    expect(done.user).toMatchObject({ email, totpEnabled: true });
    expect(browser.cookies.get("furikomi_csrf")).toBe(done.csrfToken);
    expect((await browser.client.getSession({})).user?.email).toBe(email);
    // The token and the code are used up.
    expect(
      await refusal(
        dashboardBrowser(server).client.completeSignIn({
          signInToken: first.signInToken,
          code: nextTotpCode(server, secret),
        }),
      ),
    ).toMatchObject({ code: Code.Unauthenticated, reason: "SIGN_IN_EXPIRED" });
  });

  it("lets the second step's token lapse after 5 minutes", async () => {
    const { email, secret } = await totpUser();
    const browser = dashboardBrowser(server);
    const { signInToken } = await browser.client.signIn({ email, password: dashboardPassword });
    server.clock.advance(5 * 60_000);
    expect(
      await refusal(browser.client.completeSignIn({ signInToken, code: totpCodeAt(secret, server.clock.now()) })),
    ).toMatchObject({ reason: "SIGN_IN_EXPIRED" });
  });

  it("checks at most five codes of twenty sent at once; then even the right code is refused", async () => {
    const { email, secret } = await totpUser();
    const { signInToken } = await dashboardBrowser(server).client.signIn({ email, password: dashboardPassword });
    const answers = await Promise.all(
      wrongTotpCodes(server, secret, 20).map((code) =>
        refusal(dashboardBrowser(server).client.completeSignIn({ signInToken, code })),
      ),
    );
    const reasons = answers.map((a) => a.reason);
    expect(reasons.filter((r) => r === "TOTP_CODE_INVALID")).toHaveLength(5);
    expect(reasons.filter((r) => r === "TOTP_LOCKED")).toHaveLength(15);
    expect(
      await refusal(
        dashboardBrowser(server).client.completeSignIn({ signInToken, code: nextTotpCode(server, secret) }),
      ),
    ).toMatchObject({ code: Code.ResourceExhausted, reason: "TOTP_LOCKED" });
  });
});

describe("recovery codes", () => {
  it("gives ten at enrolment, stored only hashed, each good once instead of a code", async () => {
    const { email, recoveryCodes } = await totpUser();
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[0-9a-f]{4}(-[0-9a-f]{4}){3}$/);
    const stored = await server.ctx.tx.db.selectFrom("recovery_codes").selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(recoveryCodes[0]);
    expect(stored.map((row) => row.code_hash)).toContain(hashRecoveryCode(recoveryCodes[0]));
    // At sign-in, in capitals and without dashes too.
    const signedIn = await signedInWithTotp(server, email, "", recoveryCodes[0].replace(/-/g, "").toUpperCase());
    expect((await signedIn.client.getSession({})).user?.email).toBe(email);
    const again = dashboardBrowser(server);
    const { signInToken } = await again.client.signIn({ email, password: dashboardPassword });
    expect(await refusal(again.client.completeSignIn({ signInToken, code: recoveryCodes[0] }))).toMatchObject({
      reason: "TOTP_CODE_INVALID",
    });
    // For a step-up.
    server.clock.advance(6 * 60_000);
    await signedIn.client.verifyStepUp({ code: recoveryCodes[1] });
    expect((await signedIn.client.createApiKey({})).secret).toMatch(/^sk_/);
  });
});

describe("step-up: sensitive calls of a user with TOTP need a code from the last 5 minutes", () => {
  it("refuses API keys, webhook settings and refunds without one, and allows them for 5 minutes after", async () => {
    const user = await totpUser();
    const { keys } = await user.client.listApiKeys({});
    server.clock.advance(5 * 60_000 + 1000);
    const sensitive = {
      createApiKey: () => user.client.createApiKey({}),
      revokeApiKey: () => user.client.revokeApiKey({ id: keys[0]?.id ?? "key-none" }),
      updateWebhookSettings: () => user.client.updateWebhookSettings({ rotateSecret: true }),
      refundCharge: () => user.client.refundCharge({ refund: { chargeId: "trx-none", amount: 1 } }),
    };
    for (const call of Object.values(sensitive)) {
      expect(await refusal(call())).toMatchObject({ code: Code.FailedPrecondition, reason: "STEP_UP_REQUIRED" });
    }
    // Reading stays open.
    expect((await user.client.getWebhookSettings({})).secret).toMatch(/^whsec_/);
    expect(await refusal(user.client.verifyStepUp({ code: wrongTotpCodes(server, user.secret)[0] }))).toMatchObject({
      reason: "TOTP_CODE_INVALID",
    });
    const { validUntil } = await user.client.verifyStepUp({ code: nextTotpCode(server, user.secret) });
    expect(Number(validUntil?.seconds) * 1000).toBe(Math.floor(server.clock.now().getTime() / 1000) * 1000 + 300_000);
    const created = await sensitive.createApiKey();
    expect(created.secret).toMatch(/^sk_/);
    expect((await sensitive.updateWebhookSettings()).secret).toMatch(/^whsec_/);
    expect(await refusal(sensitive.refundCharge())).not.toMatchObject({ reason: "STEP_UP_REQUIRED" });
    server.clock.advance(5 * 60_000 + 1000);
    expect(await refusal(user.client.revokeApiKey({ id: created.key!.id }))).toMatchObject({
      reason: "STEP_UP_REQUIRED",
    });
  });

  it("asks nothing of a user without TOTP", async () => {
    const user = await signedInUser(server);
    expect((await user.client.createApiKey({})).secret).toMatch(/^sk_/);
  });
});

describe("the merchant's TOTP requirement", () => {
  it("once set, a user without TOTP may only enrol; a user without TOTP cannot change it", async () => {
    const merchant = await server.newMerchant("Strict Shop");
    const plain = await signedInUser(server, { merchantId: merchant.merchant_id });
    expect(await refusal(plain.client.setTotpRequirement({ required: true }))).toMatchObject({
      reason: "TOTP_NOT_ENABLED",
    });
    const owner = await totpUser(merchant.merchant_id);
    expect(await owner.client.setTotpRequirement({ required: true })).toEqual(
      expect.objectContaining({ required: true }),
    );
    expect((await plain.client.getSession({})).user?.merchantRequiresTotp).toBe(true);
    expect(await refusal(plain.client.searchCustomers({}))).toMatchObject({
      code: Code.FailedPrecondition,
      reason: "TOTP_ENROLLMENT_REQUIRED",
    });
    expect(await refusal(plain.client.createApiKey({}))).toMatchObject({ reason: "TOTP_ENROLLMENT_REQUIRED" });
    await enrolTotp(server, plain);
    expect((await plain.client.searchCustomers({})).customers).toEqual([]);
    // Changing it back needs a recent code too.
    server.clock.advance(6 * 60_000);
    expect(await refusal(owner.client.setTotpRequirement({ required: false }))).toMatchObject({
      reason: "STEP_UP_REQUIRED",
    });
  });
});
