import { afterAll, describe, expect, it } from "vitest";
import { runCli, spawnServer } from "../helpers/process-server.js";
import { freshDatabaseUrl } from "../helpers/test-server.js";

// `npx furikomi users …` (docs/reference/cli.md): the merchant's first owner, and recovery.

const database = freshDatabaseUrl();
afterAll(() => database.cleanup());
const env = { DATABASE_URL: database.url };
const password = "a long enough passphrase";

/** Signs in over HTTP: the session's cookie and CSRF headers. */
async function signIn(url: string, email: string, pass: string) {
  const res = await fetch(`${url}/payments.v1.DashboardService/SignIn`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: pass }),
  });
  const cookies = res.headers.getSetCookie().map((c) => c.split(";")[0]);
  const csrf = cookies.find((c) => c.startsWith("furikomi_csrf="))?.split("=")[1] ?? "";
  return { status: res.status, headers: { cookie: cookies.join("; "), "x-csrf-token": csrf } };
}

describe("furikomi users", () => {
  it("adds the first owner and the team, lists them, resets and removes users, each change audited", async () => {
    const merchant = await runCli<{ merchant_id: string }>(["merchants", "create", "--name", "CLI Shop"], env);
    const added = await runCli<{ role: string }>(
      ["users", "add", "--merchant", merchant.merchant_id, "--email", "boss@example.jp", "--password", password],
      env,
    );
    expect(added.role).toBe("owner");
    await runCli(
      ["users", "add", "--merchant", merchant.merchant_id, "--email", "clerk@example.jp", "--role", "viewer"],
      { ...env, FURIKOMI_PASSWORD: password },
    );
    await expect(
      runCli(["users", "add", "--merchant", merchant.merchant_id, "--email", "x@example.jp", "--role", "king"], env),
    ).rejects.toThrow(/--role is one of owner, admin, operator, viewer/);
    await expect(
      runCli(
        ["users", "add", "--merchant", merchant.merchant_id, "--email", "CLERK@example.jp", "--password", password],
        env,
      ),
    ).rejects.toThrow(/already exists/);
    const listed = await runCli<Array<{ email: string; role: string }>>(
      ["users", "list", "--merchant", merchant.merchant_id],
      env,
    );
    expect(listed.map((u) => [u.email, u.role])).toEqual([
      ["boss@example.jp", "owner"],
      ["clerk@example.jp", "viewer"],
    ]);
    await expect(runCli(["users", "remove", "--email", "boss@example.jp"], env)).rejects.toThrow(/must keep an owner/);

    const server = await spawnServer(env);
    try {
      const clerk = await signIn(server.url, "clerk@example.jp", password);
      expect(clerk.status).toBe(200);
      const newPassword = "the recovered passphrase";
      expect(
        await runCli(["users", "reset-password", "--email", "clerk@example.jp", "--password", newPassword], env),
      ).toMatchObject({ password_reset: true });
      // The clerk's session ended with the reset; the new password signs in, the old one does not.
      const call = (headers: Record<string, string>, method: string) =>
        fetch(`${server.url}/payments.v1.DashboardService/${method}`, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body: "{}",
        });
      expect((await call(clerk.headers, "GetSession")).status).toBe(401);
      expect((await signIn(server.url, "clerk@example.jp", password)).status).toBe(401);
      expect((await signIn(server.url, "clerk@example.jp", newPassword)).status).toBe(200);
      expect(await runCli(["users", "reset-totp", "--email", "clerk@example.jp"], env)).toMatchObject({
        totp_enabled: false,
      });
      expect(await runCli(["users", "remove", "--email", "clerk@example.jp"], env)).toMatchObject({ removed: true });
      expect((await signIn(server.url, "clerk@example.jp", newPassword)).status).toBe(401);

      const boss = await signIn(server.url, "boss@example.jp", password);
      const log = (await (await call(boss.headers, "ListAuditLog")).json()) as {
        entries: Array<{ email: string; action: string }>;
      };
      const byCommandLine = log.entries.filter((e) => e.email === "(command line)").map((e) => e.action);
      expect(byCommandLine).toEqual(["user.remove", "user.totp_reset", "user.password_reset", "user.add", "user.add"]);
    } finally {
      await server.kill("SIGTERM");
    }
    const after = await runCli<unknown[]>(["users", "list", "--merchant", merchant.merchant_id], env);
    expect(after).toHaveLength(1);
  });
});
