import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { Writable } from "node:stream";
import pg from "pg";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { HostedPageService } from "../../gen/payments/v1/hosted_page_service_pb.js";
import { createDashboardUser } from "../../src/flows/dashboard-auth.js";
import { rotateApiKey } from "../../src/flows/merchants.js";
import { createLogger } from "../../src/server/logger.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { dashboardBrowser, totpCodeAt } from "../helpers/dashboard.js";
import { createPayment, freshEmail, latestCode, tokenOf } from "../helpers/on-session.js";
import { receiveWebhooksOf, type WebhookReceiver } from "../helpers/webhook-receiver.js";
import { dialects, postgresUrl, startTestServer, type TestServer } from "../helpers/test-server.js";

/**
 * Runs the flows that handle secrets with the log at its most verbose, collecting every secret
 * the run produced (API keys, webhook signing secrets, a password, TOTP seeds and codes, one-time
 * codes, session and page tokens), then looks for each in every log line and in the raw database:
 * the SQLite file and its WAL byte for byte, or every row of every PostgreSQL table as text.
 */
describe.each(dialects)("secrets hygiene on %s", (dialect) => {
  const logLines: string[] = [];
  const canaries = new Map<string, string>();
  let server: TestServer;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    const capture = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(chunk.toString());
        done();
      },
    });
    server = await startTestServer({
      dialect,
      logger: createLogger("trace", capture),
      // Unsampled successful calls go to the debug log: every level is exercised.
      env: { SECRETS_KEY: "test-sealing-key-not-a-canary", ACCESS_LOG_SAMPLE_RATE: "0" },
    });
    canaries.set("first API key", server.merchant.api_key);
    canaries.set("webhook secret", server.merchant.webhook_secret);
    receiver = await receiveWebhooksOf(server.ctx, server.merchant);

    // Wrong keys, a key in a header a client might misuse, and a rotated key.
    const stray = "sk_test_CANARYstraykey0123456789abcdefgh";
    canaries.set("stray API key", stray);
    await server
      .client(PaymentService, stray)
      .listCustomers({})
      .catch(() => undefined);
    await fetch(`${server.url}/v1/customers`, { headers: { authorization: `Basic ${stray}` } });
    const rotated = await rotateApiKey(server.ctx, server.merchant.merchant_id);
    canaries.set("rotated API key", rotated.api_key);
    const payments = server.client(PaymentService, rotated.api_key);

    // On-session payment through the hosted page: the page token, a wrong and the right one-time code.
    const email = freshEmail("canary");
    const created = await createPayment(server, { buyer: { email } }, rotated.api_key);
    const token = tokenOf(created.paymentLink!.url);
    canaries.set("page token", token);
    const page = server.client(HostedPageService);
    await page.initiatePayment({ token });
    await page.sendTwoFactorCode({ token });
    const code = await latestCode(server, email, rotated.api_key);
    canaries.set("one-time code", `code ${code}`);
    await page.verifyTwoFactorCode({ token, code: code === "000000" ? "111111" : "000000" });
    await page.verifyTwoFactorCode({ token, code });
    await page.linkBankAccount({
      token,
      bankCode: "0001",
      branchCode: "001",
      accountNumber: "7654321",
      accountHolder: "ヤマダ タロウ",
    });
    await page.approvePayment({ token });

    // Off-session charges, so webhooks are signed and delivered.
    const { customerId } = await seedActiveCustomer(server);
    await payments.createOffSessionPaymentAsync({ customerId, charge: { price: 900, description: "canary box" } });
    await server.jobs.drain();
    await server.webhooks.drain();

    // The dashboard: a password, a session, a TOTP seed and codes, a rotated signing secret.
    const password = "CANARY-password-horse-battery";
    canaries.set("dashboard password", password);
    const userEmail = freshEmail("ops");
    await createDashboardUser(server.ctx, { merchantId: server.merchant.merchant_id, email: userEmail, password });
    const browser = dashboardBrowser(server);
    await browser.client.signIn({ email: userEmail, password: "CANARY-wrong-password" }).catch(() => undefined);
    canaries.set("wrong password", "CANARY-wrong-password");
    await browser.client.signIn({ email: userEmail, password });
    canaries.set("session cookie", browser.cookies.get("furikomi_session")!);
    const { secret } = await browser.client.beginTotpEnrollment({});
    canaries.set("TOTP seed", secret);
    const totp = totpCodeAt(secret, server.clock.now());
    await browser.client.confirmTotpEnrollment({ code: totp });
    const settings = await browser.client.updateWebhookSettings({ url: receiver.url, rotateSecret: true });
    canaries.set("rotated webhook secret", settings.secret);
    receiver.close();
    await payments.createOffSessionPaymentAsync({ customerId, charge: { price: 800, description: "canary box 2" } });
    await server.jobs.drain();
    await server.webhooks.drain();
  });
  afterAll(async () => server?.stop());

  it("produced every canary and a verbose log", () => {
    expect(canaries.size).toBe(11);
    for (const [name, value] of canaries) expect(value.length, name).toBeGreaterThan(5);
    expect(logLines.length).toBeGreaterThan(10);
    expect(logLines.some((line) => JSON.parse(line).level <= 20)).toBe(true);
  });

  it("writes no secret into the log", () => {
    const log = logLines.join("");
    const found = [...canaries].filter(([, value]) => log.includes(value.replace(/^code /, ""))).map(([name]) => name);
    expect(found).toEqual([]);
  });

  it("keeps no secret in plain text in the database", async () => {
    const contents = dialect === "sqlite" ? sqliteBytes(server.databaseUrl) : await postgresText(server.databaseUrl);
    const found = [...canaries]
      .filter(([, value]) => contents.includes(value.replace(/^code /, "")))
      .map(([name]) => name);
    // The one-time code is six digits: found by chance in random bytes now and then, so it is
    // looked for where it would be written, next to the mailbox's words. The page token is
    // stored as its hash, as session tokens are.
    expect(found.filter((name) => name !== "one-time code")).toEqual([]);
    expect(contents).not.toMatch(new RegExp(`code[^0-9]{0,40}${canaries.get("one-time code")!.slice(5)}`));
  });
});

function sqliteBytes(databaseUrl: string): string {
  const path = databaseUrl.replace(/^file:/, "");
  return [path, `${path}-wal`]
    .filter(existsSync)
    .map((p) => readFileSync(p).toString("latin1") + readFileSync(p).toString("utf8"))
    .join("\n");
}

async function postgresText(databaseUrl: string): Promise<string> {
  const schema = new URL(databaseUrl).searchParams.get("schema")!;
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = $1",
      [schema],
    );
    const parts: string[] = [];
    for (const { table_name } of tables.rows) {
      const rows = await client.query(`select t::text as row from ${schema}."${table_name}" t`);
      parts.push(...rows.rows.map((r) => r.row as string));
    }
    return parts.join("\n");
  } finally {
    await client.end();
  }
}

describe("every suite is a canary run", () => {
  it("fails a test server's stop() when an API key it handed out reaches the log", async () => {
    const server = await startTestServer();
    server.logger.debug({ note: `key ${server.merchant.api_key}` }, "a careless line");
    await expect(server.stop()).rejects.toThrow(/a secret reached the log/);
  });
});
