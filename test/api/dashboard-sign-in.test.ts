import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code } from "@connectrpc/connect";
import { createDashboardUser } from "../../src/flows/dashboard-auth.js";
import { hashSessionToken } from "../../src/domain/dashboard-session.js";
import { dashboardBrowser, dashboardPassword, refusal, signedInUser } from "../helpers/dashboard.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

/** A SignIn over plain Connect JSON, to read the HTTP status and headers. */
async function signInOverHttp(server: TestServer, email: string, password: string) {
  return fetch(`${server.url}/payments.v1.DashboardService/SignIn`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
}

describe("password checks are counted before they run (no rate limit in the way)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: { WORKERS: "off", SIGN_IN_RATE_LIMIT_PER_ADDRESS: "0", SIGN_IN_RATE_LIMIT_PER_EMAIL: "0" },
    });
  });
  afterAll(async () => server?.stop());

  it("checks at most ten of 60 parallel guesses, and the right password sent inside the burst after the lock is refused", async () => {
    const email = `burst-${Date.now()}@example.jp`;
    await createDashboardUser(server.ctx, {
      merchantId: server.merchant.merchant_id,
      email,
      password: dashboardPassword,
    });
    const outcomes: Array<string | undefined> = [];
    let settled = 0;
    let firstLocked!: () => void;
    const locked = new Promise<void>((resolve) => (firstLocked = resolve));
    const burst = Array.from({ length: 60 }, (_, i) =>
      refusal(dashboardBrowser(server).client.signIn({ email, password: `wrong guess ${i}` })).then((r) => {
        outcomes.push(r.reason);
        settled++;
        if (r.reason === "SIGN_IN_LOCKED") firstLocked();
        return r;
      }),
    );
    await Promise.race([locked, Promise.all(burst)]);
    const settledWhenSent = settled;
    const right = dashboardBrowser(server);
    const answer = await refusal(right.client.signIn({ email, password: dashboardPassword }));
    await Promise.all(burst);
    expect(outcomes.filter((reason) => reason === "SIGN_IN_FAILED")).toHaveLength(10);
    expect(outcomes.filter((reason) => reason === "SIGN_IN_LOCKED")).toHaveLength(50);
    expect(settledWhenSent).toBeLessThan(60);
    expect(answer).toMatchObject({ code: Code.ResourceExhausted, reason: "SIGN_IN_LOCKED" });
    expect(right.cookies.size).toBe(0);
    // The lock answers 429 with Retry-After until it lapses (15 minutes).
    const response = await signInOverHttp(server, email, dashboardPassword);
    expect(response.status).toBe(429);
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(14 * 60);
    server.clock.advance(15 * 60_000);
    await dashboardBrowser(server).client.signIn({ email, password: dashboardPassword });
  });

  it("counts an unknown e-mail as a known one: locked after ten, with the same answers", async () => {
    const known = `known-${Date.now()}@example.jp`;
    const unknown = `unknown-${Date.now()}@example.jp`;
    await createDashboardUser(server.ctx, {
      merchantId: server.merchant.merchant_id,
      email: known,
      password: dashboardPassword,
    });
    const answers = async (email: string) => {
      const browser = dashboardBrowser(server);
      const all = [];
      for (let i = 0; i < 11; i++) all.push(await refusal(browser.client.signIn({ email, password: "wrong" })));
      return all.map((a) => ({ code: a.code, reason: a.reason }));
    };
    const knownAnswers = await answers(known);
    expect(await answers(unknown)).toEqual(knownAnswers);
    expect(knownAnswers.at(-1)).toEqual({ code: Code.ResourceExhausted, reason: "SIGN_IN_LOCKED" });
    expect(knownAnswers.at(-2)).toEqual({ code: Code.Unauthenticated, reason: "SIGN_IN_FAILED" });
  });

  it("a successful sign-in gives its own attempt back: nine wrong, the right one, then the tenth wrong locks", async () => {
    const user = await signedInUser(server);
    const browser = dashboardBrowser(server);
    for (let i = 0; i < 9; i++) await refusal(browser.client.signIn({ email: user.email, password: "wrong" }));
    await browser.client.signIn({ email: user.email, password: dashboardPassword });
    expect(await refusal(browser.client.signIn({ email: user.email, password: "wrong" }))).toMatchObject({
      reason: "SIGN_IN_FAILED",
    });
    expect(await refusal(browser.client.signIn({ email: user.email, password: dashboardPassword }))).toMatchObject({
      reason: "SIGN_IN_LOCKED",
    });
  });

  it("keeps only a hash of the CSRF token, as of the session token", async () => {
    const user = await signedInUser(server);
    const csrf = user.cookies.get("furikomi_csrf")!;
    const rows = await server.ctx.tx.db.selectFrom("dashboard_sessions").selectAll().execute();
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(csrf);
    expect(rows.some((row) => row.csrf_hash === hashSessionToken(csrf))).toBe(true);
    expect((await user.client.getSession({})).csrfToken).toBe(csrf);
  });
});

describe("SignIn rate limits", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: { WORKERS: "off", SIGN_IN_RATE_LIMIT_PER_ADDRESS: "6", SIGN_IN_RATE_LIMIT_PER_EMAIL: "3" },
    });
  });
  afterAll(async () => server?.stop());

  it("answers 429 with Retry-After past the e-mail's budget, then past the address's", async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await signInOverHttp(server, "Someone@example.jp", "wrong")).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const limited = await signInOverHttp(server, "someone@EXAMPLE.jp", "wrong");
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ code: "resource_exhausted" });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // Five calls spent of the address's six: one more e-mail, then the address is refused too.
    expect((await signInOverHttp(server, "other@example.jp", "wrong")).status).toBe(401);
    const byAddress = await signInOverHttp(server, "third@example.jp", "wrong");
    expect(byAddress.status).toBe(429);
    expect(Number(byAddress.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // The second step spends from the address's bucket too.
    const secondStep = await fetch(`${server.url}/payments.v1.DashboardService/CompleteSignIn`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ signInToken: "guessed", code: "123456" }),
    });
    expect(secondStep.status).toBe(429);
  });
});
