import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, spawnServer, type ServerProcess } from "../helpers/process-server.js";
import { freshDatabaseUrl } from "../helpers/test-server.js";

// `npx furikomi users …` (docs/reference/cli.md): the merchant's first owner, and recovery. One
// database for the file, one thing per test; the server runs for the tests that sign in. Whatever
// a test that times out leaves running goes after the file (test/helpers/teardown.ts).

const database = freshDatabaseUrl();
afterAll(() => database.cleanup());
const env = { DATABASE_URL: database.url };
const password = "a long enough passphrase";
let merchantId: string;

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

/** A dashboard RPC with an empty request, as the signed-in user of `headers`. */
function call(url: string, headers: Record<string, string>, method: string) {
  return fetch(`${url}/payments.v1.DashboardService/${method}`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: "{}",
  });
}

const addUser = (email: string, extra: string[] = ["--password", password], more: Record<string, string> = {}) =>
  runCli<{ role: string }>(["users", "add", "--merchant", merchantId, "--email", email, ...extra], { ...env, ...more });

beforeAll(async () => {
  ({ merchant_id: merchantId } = await runCli<{ merchant_id: string }>(
    ["merchants", "create", "--name", "CLI Shop"],
    env,
  ));
});

describe("furikomi users", () => {
  it("adds the merchant's first user as its owner", async () => {
    expect((await addUser("boss@example.jp")).role).toBe("owner");
  });

  it("adds a teammate with the role given, the password from FURIKOMI_PASSWORD", async () => {
    const added = await addUser("clerk@example.jp", ["--role", "viewer"], { FURIKOMI_PASSWORD: password });
    expect(added.role).toBe("viewer");
  });

  it("refuses a role that does not exist", async () => {
    await expect(addUser("x@example.jp", ["--role", "king"])).rejects.toThrow(
      /--role is one of owner, admin, operator, viewer/,
    );
  });

  it("refuses an e-mail already on the team, whatever its case", async () => {
    await expect(addUser("CLERK@example.jp")).rejects.toThrow(/already exists/);
  });

  it("lists the team with their roles", async () => {
    const listed = await runCli<Array<{ email: string; role: string }>>(
      ["users", "list", "--merchant", merchantId],
      env,
    );
    expect(listed.map((u) => [u.email, u.role])).toEqual([
      ["boss@example.jp", "owner"],
      ["clerk@example.jp", "viewer"],
    ]);
  });

  it("does not remove the last owner", async () => {
    await expect(runCli(["users", "remove", "--email", "boss@example.jp"], env)).rejects.toThrow(/must keep an owner/);
  });

  describe("against a running server", () => {
    let server: ServerProcess;
    const newPassword = "the recovered passphrase";
    beforeAll(async () => {
      server = await spawnServer(env);
    });
    afterAll(() => server?.kill("SIGTERM"));

    it("reset-password ends the user's sessions; the new password signs in, the old one does not", async () => {
      const clerk = await signIn(server.url, "clerk@example.jp", password);
      expect(clerk.status).toBe(200);
      expect(
        await runCli(["users", "reset-password", "--email", "clerk@example.jp", "--password", newPassword], env),
      ).toMatchObject({ password_reset: true });
      expect((await call(server.url, clerk.headers, "GetSession")).status).toBe(401);
      expect((await signIn(server.url, "clerk@example.jp", password)).status).toBe(401);
      expect((await signIn(server.url, "clerk@example.jp", newPassword)).status).toBe(200);
    });

    it("reset-totp turns the user's TOTP off", async () => {
      expect(await runCli(["users", "reset-totp", "--email", "clerk@example.jp"], env)).toMatchObject({
        totp_enabled: false,
      });
    });

    it("remove ends the user's access", async () => {
      expect(await runCli(["users", "remove", "--email", "clerk@example.jp"], env)).toMatchObject({ removed: true });
      expect((await signIn(server.url, "clerk@example.jp", newPassword)).status).toBe(401);
      const after = await runCli<unknown[]>(["users", "list", "--merchant", merchantId], env);
      expect(after).toHaveLength(1);
    });

    it("audits each change as made from the command line, newest first", async () => {
      const boss = await signIn(server.url, "boss@example.jp", password);
      const log = (await (await call(server.url, boss.headers, "ListAuditLog")).json()) as {
        entries: Array<{ email: string; action: string }>;
      };
      const byCommandLine = log.entries.filter((e) => e.email === "(command line)").map((e) => e.action);
      expect(byCommandLine).toEqual(["user.remove", "user.totp_reset", "user.password_reset", "user.add", "user.add"]);
    });
  });
});

describe("furikomi sandbox mailbox", () => {
  it("lists the operator's mailbox: a customer-app sign-in code that no merchant's key reads", async () => {
    const server = await spawnServer(env);
    try {
      const email = "cli-customer@example.jp";
      const created = await fetch(`${server.url}/v1/payments/on-session`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${(await runCli<{ api_key: string }>(["keys", "rotate", "--merchant", merchantId], env)).api_key}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({
          buyer: { email },
          charge: { price: 500, description: "x" },
          redirect: { successUrl: "https://shop.example.jp/ok", failureUrl: "https://shop.example.jp/ng" },
        }),
      });
      expect(created.status).toBe(200);
      const sent = await fetch(`${server.url}/app/v1/sign-in/code`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email }),
      });
      expect(sent.status).toBe(200);
      let messages: Array<{ to: string; code: string }> = [];
      for (let waited = 0; messages.length === 0 && waited < 10_000; waited += 200) {
        messages = await runCli(["sandbox", "mailbox", "--email", email], env);
        if (messages.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(messages[0]).toMatchObject({ to: email, code: expect.stringMatching(/^[0-9]{6}$/) });
    } finally {
      await server.kill();
    }
  });
});
