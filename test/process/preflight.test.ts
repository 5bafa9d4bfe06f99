import { afterAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freshDatabaseUrl } from "../helpers/test-server.js";
import { spawnServer } from "../helpers/process-server.js";
import { bundleServer } from "../helpers/bundled-server.js";

const root = new URL("../..", import.meta.url).pathname;

/** Everything production needs missing at once: no SECRETS_KEY, no SMTP, the simulated bank, http. */
const bad = {
  MODE: "production",
  SECRETS_KEY: "",
  SMTP_HOST: "",
  BANK_CONNECTOR: "simulated",
  PUBLIC_BASE_URL: "http://pay.example.jp",
};
const zenginDir = mkdtempSync(join(tmpdir(), "furikomi-zengin-"));
const good = {
  MODE: "production",
  SECRETS_KEY: "q8JmXbW3Y0x1k8m7bN0cZs9v2Rk4tU6wLhJ3pQ5eA1c=",
  SMTP_HOST: "127.0.0.1",
  SMTP_PORT: "2525",
  BANK_CONNECTOR: "zengin",
  ZENGIN_DIR: zenginDir,
  PUBLIC_BASE_URL: "https://pay.example.jp",
};

function run(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, PORT: "0", ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("the production preflight", () => {
  const fresh = freshDatabaseUrl();
  afterAll(async () => {
    await fresh.cleanup();
    rmSync(zenginDir, { recursive: true, force: true });
  });

  it("MODE=production refuses to start and lists every problem at once", async () => {
    const { code, stdout, stderr } = await run([await bundleServer()], { ...bad, DATABASE_URL: fresh.url });
    expect(code).toBe(78);
    const problems = stderr.split("\n").filter((line) => line.startsWith("  - "));
    expect(problems.map((line) => line.slice(4).split(":")[0])).toEqual([
      "SECRETS_KEY",
      "e-mail",
      "BANK_CONNECTOR",
      "PUBLIC_BASE_URL",
    ]);
    const fatal = JSON.parse(stdout.split("\n")[0]!);
    expect(fatal).toMatchObject({ level: 60, msg: "MODE=production refuses to start" });
    expect(fatal.problems).toHaveLength(4);
    expect(stdout).not.toContain("furikomi listening");
  });

  it("a short SECRETS_KEY is refused on its own", async () => {
    const { code, stderr } = await run([await bundleServer()], {
      ...good,
      SECRETS_KEY: "changeme",
      DATABASE_URL: fresh.url,
    });
    expect(code).toBe(78);
    expect(stderr).toContain("SECRETS_KEY: only 8 characters");
    expect(stderr).not.toContain("e-mail:");
  });

  it("starts with a good production configuration", async () => {
    const server = await spawnServer({ ...good, DATABASE_URL: fresh.url });
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    expect(await server.kill("SIGTERM")).toBe(0);
  });

  it("furikomi doctor prints the same checks and exits 1 in production", async () => {
    const { code, stdout, stderr } = await run(["bin/furikomi.js", "doctor"], bad);
    expect(code).toBe(1);
    expect(stdout).toMatch(/FAIL {2}SECRETS_KEY: not set/);
    expect(stdout).toMatch(/FAIL {2}e-mail: SMTP_HOST is not set/);
    expect(stdout).toMatch(/FAIL {2}BANK_CONNECTOR: simulated/);
    expect(stdout).toMatch(/FAIL {2}PUBLIC_BASE_URL: http:\/\/pay.example.jp is not https/);
    expect(stderr).toContain("4 problem(s): MODE=production refuses to start");
  });

  it("furikomi doctor passes a good configuration and only notes a sandbox's differences", async () => {
    const production = await run(["bin/furikomi.js", "doctor"], good);
    expect(production.code).toBe(0);
    expect(production.stdout).not.toContain("FAIL");
    expect(production.stdout).toContain("ready for MODE=production");
    const sandbox = await run(["bin/furikomi.js", "doctor"], { ...bad, MODE: "sandbox" });
    expect(sandbox.code).toBe(0);
    expect(sandbox.stdout).toMatch(/note {2}BANK_CONNECTOR/);
    expect(sandbox.stdout).toContain("4 setting(s) to change before MODE=production");
  });

  it("furikomi doctor reports a configuration that does not load", async () => {
    const { code, stderr } = await run(["bin/furikomi.js", "doctor"], { MODE: "staging" });
    expect(code).toBe(1);
    expect(stderr).toContain("configuration: MODE must be sandbox or production, not staging");
  });
});
