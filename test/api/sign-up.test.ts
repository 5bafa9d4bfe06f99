import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code } from "@connectrpc/connect";
import { DashboardRole } from "../../gen/payments/v1/dashboard_roles_pb.js";
import { readOperatorMailbox } from "../../src/flows/sandbox.js";
import { findMerchant } from "../../src/storage/merchants.js";
import { findSignInCodeMail } from "../../src/storage/sign-in-code-mail.js";
import { dashboardBrowser, refusal, totpCodeAt, type DashboardBrowser } from "../helpers/dashboard.js";
import { freshEmail } from "../helpers/on-session.js";
import { api, startTestServer, testDialect, type TestServer } from "../helpers/test-server.js";

const password = "a long enough sign-up password";

/** The code the sign-up e-mail carried (the sandbox's operator mailbox). */
async function mailedCode(server: TestServer, email: string): Promise<string> {
  await server.jobs.drain();
  const [message] = await readOperatorMailbox(server.ctx, email);
  expect(message.subject).toContain("新規登録の確認コード");
  return message.code;
}

async function merchantsNamed(server: TestServer, name: string): Promise<string[]> {
  const rows = await server.ctx.tx.db.selectFrom("merchants").select("id").where("name", "=", name).execute();
  return rows.map((r) => r.id);
}

describe(`sign-up, ${testDialect}`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { SIGN_IN_RATE_LIMIT_PER_ADDRESS: "1000" } });
  });
  afterAll(async () => server?.stop());

  it("e-mail code, password, business name: a merchant (onboarding incomplete), its owner, a sandbox key and webhook secret at once", async () => {
    const email = freshEmail("owner");
    const browser = dashboardBrowser(server);
    await browser.client.startSignUp({ email });
    const code = await mailedCode(server, email);
    const wrong = await browser.client.completeSignUp({
      email,
      code: code === "000000" ? "111111" : "000000",
      password,
      businessName: "珈琲豆の店",
    });
    expect(wrong).toMatchObject({ verified: false, attemptsLeft: 4, apiKey: "", webhookSecret: "" });
    expect(await merchantsNamed(server, "珈琲豆の店")).toHaveLength(0);

    const signedUp = await browser.client.completeSignUp({ email, code, password, businessName: "珈琲豆の店" });
    expect(signedUp.verified).toBe(true);
    expect(signedUp.user).toMatchObject({
      email,
      merchantName: "珈琲豆の店",
      role: DashboardRole.OWNER,
      totpEnabled: false,
      totpSetupRequired: true,
    });
    expect(signedUp.apiKey).toMatch(/^sk_test_/);
    expect(signedUp.webhookSecret).toMatch(/^whsec_/);
    expect(browser.cookies.get("furikomi_session")).toBeTruthy();
    const merchant = await findMerchant(server.ctx.tx.db, signedUp.user!.merchantId);
    expect(merchant?.onboardingState).toBe("incomplete");
    expect(merchant?.webhookSecret).toBe(signedUp.webhookSecret);

    // The sandbox key works at once.
    const payment = await api(server, "/v1/payments/on-session", {
      method: "POST",
      apiKey: signedUp.apiKey,
      json: {
        buyer: { email: freshEmail("buyer") },
        charge: { price: 1200, description: "Coffee beans" },
        redirect: { success_url: "https://shop.example.jp/thanks", failure_url: "https://shop.example.jp/sorry" },
      },
    });
    expect(payment.status).toBe(200);

    // The owner enrols TOTP before anything else, as an invitee does.
    expect((await refusal(browser.client.listApiKeys({}))).reason).toBe("TOTP_ENROLLMENT_REQUIRED");
    await enrol(server, browser);
    expect((await browser.client.listApiKeys({})).keys).toHaveLength(1);
    const audit = await browser.client.listAuditLog({});
    expect(audit.entries.map((e) => e.action)).toContain("merchant.sign_up");
  });

  it("refuses an e-mail that was never sent a code, and writes nothing", async () => {
    const email = freshEmail("unverified");
    const refused = await refusal(
      dashboardBrowser(server).client.completeSignUp({ email, code: "123456", password, businessName: "Unverified" }),
    );
    expect(refused.code).toBe(Code.FailedPrecondition);
    expect(refused.message).toMatch(/no code has been sent/);
    expect(await merchantsNamed(server, "Unverified")).toHaveLength(0);
  });

  it("refuses a short password before the code is tried", async () => {
    const email = freshEmail("weak");
    const browser = dashboardBrowser(server);
    await browser.client.startSignUp({ email });
    const code = await mailedCode(server, email);
    const refused = await refusal(
      browser.client.completeSignUp({ email, code, password: "short", businessName: "Weak" }),
    );
    expect(refused).toMatchObject({ code: Code.InvalidArgument, reason: "PASSWORD_TOO_WEAK" });
    const signedUp = await browser.client.completeSignUp({ email, code, password, businessName: "Weak" });
    expect(signedUp.verified).toBe(true);
  });

  it("parallel sign-ups with one e-mail make one merchant", async () => {
    const email = freshEmail("parallel");
    await dashboardBrowser(server).client.startSignUp({ email });
    const code = await mailedCode(server, email);
    const attempts = await Promise.allSettled(
      Array.from({ length: 6 }, () =>
        dashboardBrowser(server).client.completeSignUp({ email, code, password, businessName: "Parallel Shop" }),
      ),
    );
    expect(attempts.filter((a) => a.status === "fulfilled" && a.value.verified)).toHaveLength(1);
    expect(attempts.filter((a) => a.status === "rejected")).toHaveLength(5);
    expect(await merchantsNamed(server, "Parallel Shop")).toHaveLength(1);

    // Later, the same e-mail with a new code: the user exists, no second merchant.
    server.clock.advance(60_000);
    await dashboardBrowser(server).client.startSignUp({ email });
    await server.jobs.drain();
    const [newest] = await readOperatorMailbox(server.ctx, email);
    const again = await refusal(
      dashboardBrowser(server).client.completeSignUp({
        email: email.toUpperCase(),
        code: newest.code,
        password,
        businessName: "Parallel Shop",
      }),
    );
    expect(again).toMatchObject({ code: Code.InvalidArgument, reason: "USER_EXISTS" });
    expect(await merchantsNamed(server, "Parallel Shop")).toHaveLength(1);
  });

  it("sends one code per 30 seconds to an e-mail", async () => {
    const email = freshEmail("resend");
    const browser = dashboardBrowser(server);
    await browser.client.startSignUp({ email });
    expect((await refusal(browser.client.startSignUp({ email }))).reason).toBe("SIGN_IN_CODE_TOO_SOON");
  });
});

describe(`sign-up rate limits, ${testDialect}`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { SIGN_IN_RATE_LIMIT_PER_EMAIL: "3" } });
  });
  afterAll(async () => server?.stop());

  it("spends the sign-in buckets: the e-mail's fourth call in a minute is RATE_LIMITED", async () => {
    const email = freshEmail("bucket");
    const browser = dashboardBrowser(server);
    await browser.client.startSignUp({ email });
    for (let i = 0; i < 2; i++)
      expect((await refusal(browser.client.startSignUp({ email }))).reason).toBe("SIGN_IN_CODE_TOO_SOON");
    expect(await refusal(browser.client.startSignUp({ email }))).toMatchObject({
      code: Code.ResourceExhausted,
      reason: "RATE_LIMITED",
    });
  });
});

describe(`sign-up in production, ${testDialect}`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { MODE: "production", WORKERS: "off" } });
  });
  afterAll(async () => server?.stop());

  it("gives a webhook secret but no key: a live key waits for the operator's approval", async () => {
    const email = freshEmail("live");
    const browser = dashboardBrowser(server);
    await browser.client.startSignUp({ email });
    const [queued] = await server.ctx.tx.db.selectFrom("sign_in_code_mail").select("code_id").execute();
    const mail = await findSignInCodeMail(server.ctx.tx.db, queued.code_id);
    const signedUp = await browser.client.completeSignUp({
      email,
      code: mail!.code,
      password,
      businessName: "Live Shop",
    });
    expect(signedUp).toMatchObject({ verified: true, apiKey: "" });
    expect(signedUp.webhookSecret).toMatch(/^whsec_/);
    const keys = await server.ctx.tx.db
      .selectFrom("api_keys")
      .select("id")
      .where("merchant_id", "=", signedUp.user!.merchantId)
      .execute();
    expect(keys).toHaveLength(0);
  });
});

async function enrol(server: TestServer, browser: DashboardBrowser): Promise<string> {
  const { secret } = await browser.client.beginTotpEnrollment({});
  await browser.client.confirmTotpEnrollment({ code: totpCodeAt(secret, server.clock.now()) });
  return secret;
}
