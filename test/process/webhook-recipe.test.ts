import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { api, startTestServer, type TestServer } from "../helpers/test-server.js";
import { receiveWebhooksOf, type WebhookReceiver } from "../helpers/webhook-receiver.js";

let server: TestServer;
let receiver: WebhookReceiver;

beforeAll(async () => {
  server = await startTestServer();
  receiver = await receiveWebhooksOf(server.ctx, server.merchant);
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

/** The shell recipe for verifying a webhook with openssl, as the docs print it. */
function recipe(): string {
  const page = ["docs/guide/webhooks.md", "README.md"].find((file) => existsSync(file))!;
  const text = readFileSync(page, "utf8");
  const after = text.slice(text.indexOf("with openssl ("));
  const block = /```sh\n([\s\S]*?)```/.exec(after);
  if (!block) throw new Error(`no openssl recipe in ${page}`);
  return block[1];
}

it("the docs' openssl recipe, run as written, prints both signatures of a real delivery", async () => {
  const { customerId } = await seedActiveCustomer(server);
  const res = await api(server, "/v1/payments/off-session", {
    method: "POST",
    json: { customer_id: customerId, charge: { price: 1500, description: '抹茶 & "quotes"' } },
  });
  const { charge } = await res.json();
  await receiver.waitFor((r) => r.delivered.some((d) => d.content.id === charge.chargeId));
  const delivery = receiver.delivered.find((d) => d.content.id === charge.chargeId)!;

  const dir = mkdtempSync(join(tmpdir(), "furikomi-recipe-"));
  try {
    writeFileSync(join(dir, "body.json"), delivery.raw);
    const output = execFileSync("bash", ["-c", recipe()], {
      cwd: dir,
      encoding: "utf8",
      env: {
        PATH: process.env.PATH,
        SECRET: server.merchant.webhook_secret,
        WEBHOOK_ID: String(delivery.headers["webhook-id"]),
        WEBHOOK_TIMESTAMP: String(delivery.headers["webhook-timestamp"]),
      },
    });
    expect(output.trim().split("\n")).toEqual([String(delivery.headers["webhook-signature"]), delivery.signature]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
