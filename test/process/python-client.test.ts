import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

/**
 * Debian's Python: the gRPC and protobuf packages (.ci/run installs them with apt) live in its
 * dist-packages, not in another interpreter that may come first on PATH. No skip when they are
 * missing: the test fails and says what to install.
 */
const python = process.env.FURIKOMI_PYTHON ?? "/usr/bin/python3";
const root = new URL("../..", import.meta.url).pathname;

let server: TestServer;
let stubs: string;

beforeAll(async () => {
  const missing = spawnSync(python, ["-c", "import grpc, google.protobuf"], { encoding: "utf8" });
  if (!existsSync(python) || missing.status !== 0) {
    throw new Error(
      `${python} cannot import grpc and google.protobuf: apt-get install python3-grpcio python3-protobuf protobuf-compiler protobuf-compiler-grpc\n${missing.stderr ?? ""}`,
    );
  }
  stubs = mkdtempSync(join(tmpdir(), "furikomi-py-"));
  const generated = spawnSync("bash", [join(root, "clients/python/generate.sh"), stubs], { encoding: "utf8" });
  if (generated.status !== 0) throw new Error(`clients/python/generate.sh failed:\n${generated.stderr}`);
  server = await startTestServer();
});

afterAll(async () => {
  await server?.stop();
  if (stubs) rmSync(stubs, { recursive: true, force: true });
});

describe("the Python client (generated stubs over gRPC, h2c)", () => {
  it("creates an on-session payment, reads its charge, and reads the ErrorInfo reason of a failure", async () => {
    const target = new URL(server.url).host;
    // Asynchronous spawn: the server answering the program runs in this process.
    const { code, stdout, stderr } = await run(
      python,
      [join(root, "clients/python/furikomi_example.py"), "--target", target, "--api-key", server.merchant.api_key],
      {
        ...process.env,
        PYTHONPATH: stubs,
      },
    );
    expect(code, stderr).toBe(0);
    const steps = Object.fromEntries(
      stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line))
        .map((s) => [s.step, s]),
    );
    expect(steps.created.charge_id).toMatch(/^trx-/);
    expect(steps.created.on_session_id).toMatch(/^chg-/);
    expect(steps.created.payment_link).toContain("/pay/");
    expect(steps.charge).toEqual({
      step: "charge",
      charge_id: steps.created.charge_id,
      status: "CHARGE_STATUS_PENDING",
      amount: 1200,
      currency: "JPY",
    });
    expect(steps.failure).toMatchObject({
      grpc_code: "INVALID_ARGUMENT",
      reason: "ON_SESSION_PAYMENT_ERROR_CODE_VALIDATION_FAILED",
      payment_error_code: "PAYMENT_ERROR_CODE_BAD_REQUEST",
      field: "buyer.email",
    });
  });
});

function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
