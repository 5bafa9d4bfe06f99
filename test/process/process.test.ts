import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { freshDatabaseUrl } from "../helpers/test-server.js";
import { runCli, spawnServer, type ServerProcess } from "../helpers/process-server.js";

const root = new URL("../..", import.meta.url).pathname;
const buf = `${root}node_modules/.bin/buf`;

describe("the server as a process, the CLI and buf curl", () => {
  let server: ServerProcess;
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  let merchant: { merchant_id: string; api_key: string; webhook_secret: string };

  beforeAll(async () => {
    const fresh = freshDatabaseUrl();
    cleanup = fresh.cleanup;
    env = { DATABASE_URL: fresh.url, API_KEY_CACHE_MS: "0" };
    merchant = await runCli(
      ["merchants", "create", "--name", "CLI Shop", "--webhook-url", "http://127.0.0.1:9/hook"],
      env,
    );
    server = await spawnServer(env);
  });
  afterAll(async () => {
    await server?.kill();
    await cleanup?.();
  });

  it("the CLI prints a working key and a webhook secret", async () => {
    expect(merchant.api_key).toMatch(/^sk_test_/);
    expect(merchant.webhook_secret).toMatch(/^whsec_/);
    expect(Buffer.from(merchant.webhook_secret.slice(6), "base64")).toHaveLength(32);
    const res = await fetch(`${server.url}/v1/customers`, { headers: { authorization: `Bearer ${merchant.api_key}` } });
    expect(res.status).toBe(200);
  });

  it("keys rotate revokes the old key", async () => {
    const rotated = await runCli<{ api_key: string }>(["keys", "rotate", "--merchant", merchant.merchant_id], env);
    const old = await fetch(`${server.url}/v1/customers`, { headers: { authorization: `Bearer ${merchant.api_key}` } });
    const fresh = await fetch(`${server.url}/v1/customers`, {
      headers: { authorization: `Bearer ${rotated.api_key}` },
    });
    expect(old.status).toBe(401);
    expect(fresh.status).toBe(200);
    merchant.api_key = rotated.api_key;
  });

  it("buf curl finds the schema through server reflection", async () => {
    const curl = (body: string) =>
      promisify(execFile)(
        buf,
        [
          "curl",
          "-H",
          `authorization: Bearer ${merchant.api_key}`,
          "-d",
          body,
          `${server.url}/payments.v1.PaymentService/GetCharge`,
        ],
        { cwd: root },
      );
    const error = await curl('{"charge":"trx-nothing"}').then(
      () => undefined,
      (e: { stderr: string }) => e,
    );
    expect(JSON.parse(error!.stderr)).toMatchObject({ code: "not_found", message: "charge trx-nothing not found" });
    // The schema is known without --schema: an unknown field is refused before anything is sent.
    const unknown = await curl('{"nope":1}').then(
      () => undefined,
      (e: { stderr: string }) => e,
    );
    expect(unknown!.stderr).toMatch(/nope/);
  });

  it("buf curl lists the services over gRPC reflection", async () => {
    const { stdout } = await promisify(execFile)(
      buf,
      ["curl", "--protocol", "grpc", "--http2-prior-knowledge", "--list-methods", server.url],
      { cwd: root },
    );
    expect(stdout).toContain("payments.v1.PaymentService/CreateOnSessionPayment");
    expect(stdout).toContain("payments.v1.SandboxService/Withdraw");
  });

  it("SIGTERM shuts down cleanly", async () => {
    const second = await spawnServer(env);
    const inFlight = fetch(`${second.url}/healthz`);
    expect((await inFlight).status).toBe(200);
    expect(await second.kill("SIGTERM")).toBe(0);
  });
});
