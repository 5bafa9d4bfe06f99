import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setTimeout as sleep } from "node:timers/promises";
import pino from "pino";
import { Code } from "@connectrpc/connect";
import { DashboardRole } from "../../gen/payments/v1/dashboard_roles_pb.js";
import { loadConfig } from "../../src/config.js";
import { startService, type RunningService } from "../../src/composition-root.js";
import { createDashboardUser } from "../../src/flows/dashboard-auth.js";
import {
  dashboardBrowser,
  dashboardPassword,
  enrolTotp,
  nextTotpCode,
  refusal,
  signedInUser,
  type DashboardBrowser,
} from "../helpers/dashboard.js";
import { registerTeardown } from "../helpers/teardown.js";
import { startTestServer, testDialect, type TestServer } from "../helpers/test-server.js";

// Access that ends ends everywhere at once (docs/reference/security.md#access-that-ends): sign-ins
// racing a removal, a password reset or a role change leave no live session, on SQLite and, in the
// PostgreSQL pass, with the sign-ins sent to a second instance on the same schema.

let server: TestServer;
/** Where the racing sign-ins go: a second instance on the same PostgreSQL schema, or the same server on SQLite. */
let signInUrl: string;
let second: RunningService | undefined;
let owner: DashboardBrowser & { email: string; userId: string };
let ownerSecret: string;
let userCounter = 0;

beforeAll(async () => {
  const env = { SIGN_IN_RATE_LIMIT_PER_ADDRESS: "100000", SIGN_IN_RATE_LIMIT_PER_EMAIL: "100000" };
  server = await startTestServer({ env });
  signInUrl = server.url;
  if (testDialect === "postgres") {
    const config = loadConfig({
      PORT: "0",
      HOST: "127.0.0.1",
      DATABASE_URL: server.databaseUrl,
      LOG_LEVEL: "silent",
      WORKERS: "off",
      ...env,
    });
    const instance = await startService(config, { clock: server.clock, logger: pino({ level: "silent" }) });
    const close = registerTeardown("service", () => instance.close());
    second = { ...instance, close };
    signInUrl = instance.url;
  }
  owner = await signedInUser(server);
  ownerSecret = await enrolTotp(server, owner);
});
afterAll(async () => {
  await second?.close();
  await server?.stop();
});

/** A user of the test merchant with the test password. */
async function member(role: "admin" | "operator" = "admin"): Promise<{ email: string; userId: string }> {
  const email = `racer${++userCounter}-${Date.now().toString(36)}@example.jp`;
  const { user_id } = await createDashboardUser(server.ctx, {
    merchantId: server.merchant.merchant_id,
    email,
    password: dashboardPassword,
    role,
  });
  return { email, userId: user_id };
}

const browserAt = (url: string) => dashboardBrowser({ ...server, url });

/**
 * `count` sign-ins with the password, sent to `signInUrl` a few milliseconds apart, and `change`
 * sent to the first instance while they run (their slow password hashes overlap it). Answers the
 * browsers, each with whatever session it was given.
 */
async function signInsRacing(email: string, change: () => Promise<unknown>, count = 6): Promise<DashboardBrowser[]> {
  await owner.client.verifyStepUp({ code: nextTotpCode(server, ownerSecret) });
  const browsers = Array.from({ length: count }, () => browserAt(signInUrl));
  const signIns = browsers.map(async (browser, n) => {
    await sleep(n * 15);
    await browser.client.signIn({ email, password: dashboardPassword }).catch(() => undefined);
  });
  await Promise.all([...signIns, sleep(25).then(change)]);
  return browsers;
}

/** No browser holds a session that answers, on either instance; an API key cannot be made with one. */
async function expectNoLiveSession(browsers: DashboardBrowser[]) {
  for (const browser of browsers) {
    for (const url of new Set([server.url, signInUrl])) {
      const at = browserAt(url);
      for (const [name, value] of browser.cookies) at.cookies.set(name, value);
      const refused = await refusal(at.client.getSession({}));
      expect([refused.code, refused.reason]).toEqual([Code.Unauthenticated, "SESSION_REQUIRED"]);
      expect((await refusal(at.client.createApiKey({}))).reason).toBe("SESSION_REQUIRED");
    }
  }
}

/** The user's audit entries in the order they were written. */
async function auditOf(userId: string): Promise<string[]> {
  const rows = await server.ctx.tx.db
    .selectFrom("audit_log")
    .select(["action", "user_id", "target"])
    .where((eb) => eb.or([eb("user_id", "=", userId), eb("target", "=", userId)]))
    .orderBy("seq")
    .execute();
  return rows.map((row) => row.action);
}

describe("sign-ins racing the end of access", () => {
  it("a removal: every sign-in in flight is refused or its session dead; nothing signs in after user.remove", async () => {
    const user = await member();
    const browsers = await signInsRacing(user.email, () => owner.client.removeTeamMember({ userId: user.userId }));
    await expectNoLiveSession(browsers);
    const actions = await auditOf(user.userId);
    expect(actions).toContain("user.remove");
    expect(actions.slice(actions.indexOf("user.remove"))).not.toContain("sign_in");
  });

  it("a password reset: no sign-in with the old password keeps a session", async () => {
    const user = await member();
    const browsers = await signInsRacing(user.email, () =>
      owner.client.resetTeamMemberPassword({ userId: user.userId }),
    );
    await expectNoLiveSession(browsers);
    const actions = await auditOf(user.userId);
    expect(actions.slice(actions.indexOf("user.password_reset"))).not.toContain("sign_in");
    const late = await refusal(browserAt(signInUrl).client.signIn({ email: user.email, password: dashboardPassword }));
    expect(late.reason).toBe("SIGN_IN_FAILED");
  });

  it("a role change: sessions begun under the old role end; signing in again gives the new one", async () => {
    const user = await member("operator");
    const browsers = await signInsRacing(user.email, () =>
      owner.client.changeTeamMemberRole({ userId: user.userId, role: DashboardRole.VIEWER }),
    );
    // A session started after the change carries the new role; any other is dead.
    for (const browser of browsers) {
      const session = await browser.client.getSession({}).catch(() => undefined);
      if (session) expect(session.user?.role).toBe(DashboardRole.VIEWER);
    }
    const again = browserAt(signInUrl);
    await again.client.signIn({ email: user.email, password: dashboardPassword });
    expect((await again.client.getSession({})).user?.role).toBe(DashboardRole.VIEWER);
  });
});

describe("the second step and API keys", () => {
  it("a TOTP sign-in's second step is refused once the user is removed, even with the right code", async () => {
    const user = await signedInUser(server, { role: "admin" });
    const secret = await enrolTotp(server, user);
    const pending = await Promise.all(
      Array.from({ length: 4 }, () =>
        browserAt(signInUrl).client.signIn({ email: user.email, password: dashboardPassword }),
      ),
    );
    await owner.client.verifyStepUp({ code: nextTotpCode(server, ownerSecret) });
    const code = nextTotpCode(server, secret);
    const completing = pending.map(async ({ signInToken }, n) => {
      await sleep(n * 10);
      const browser = browserAt(signInUrl);
      await browser.client.completeSignIn({ signInToken, code }).catch(() => undefined);
      return browser;
    });
    await owner.client.removeTeamMember({ userId: user.userId });
    await expectNoLiveSession(await Promise.all(completing));
    const after = await refusal(
      browserAt(signInUrl).client.completeSignIn({ signInToken: pending[3].signInToken, code }),
    );
    expect([after.code, after.reason]).toEqual([Code.Unauthenticated, "SIGN_IN_EXPIRED"]);
  });

  it("API keys name the session that made them, and none is made after its user's removal", async () => {
    const user = await signedInUser(server, { role: "admin" });
    const first = await user.client.createApiKey({});
    const stored = await server.ctx.tx.db
      .selectFrom("api_keys")
      .select(["created_by_user_id", "created_in_session"])
      .where("id", "=", first.key!.id)
      .executeTakeFirstOrThrow();
    expect(stored.created_by_user_id).toBe(user.userId);
    expect(stored.created_in_session).toMatch(/^[0-9a-f]{64}$/);

    await owner.client.verifyStepUp({ code: nextTotpCode(server, ownerSecret) });
    const racing = browserAt(signInUrl);
    for (const [name, value] of user.cookies) racing.cookies.set(name, value);
    const creates = Array.from({ length: 8 }, async (_, n) => {
      await sleep(n * 5);
      return racing.client.createApiKey({}).then(
        (made) => made.key!.id,
        () => undefined,
      );
    });
    await Promise.all([...creates, sleep(10).then(() => owner.client.removeTeamMember({ userId: user.userId }))]);
    // Every key of the user was written before the removal, in the log's order.
    const log = await server.ctx.tx.db
      .selectFrom("audit_log")
      .select(["action", "target"])
      .where("user_id", "in", [user.userId, owner.userId])
      .orderBy("seq")
      .execute();
    const removedAt = log.findIndex((e) => e.action === "user.remove" && e.target === user.userId);
    const keys = await server.ctx.tx.db
      .selectFrom("api_keys")
      .select("id")
      .where("created_by_user_id", "=", user.userId)
      .execute();
    for (const { id } of keys) {
      const createdAt = log.findIndex((e) => e.action === "api_key.create" && e.target === id);
      expect(createdAt).toBeGreaterThanOrEqual(0);
      expect(createdAt).toBeLessThan(removedAt);
    }
    await expectNoLiveSession([user]);
  });
});
