import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "node:http";
import { createServer, type AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { SMTPServer } from "smtp-server";
import { Code, ConnectError } from "@connectrpc/connect";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { readOperatorMailbox } from "../../src/flows/sandbox.js";
import { appSignInCode, customerAppClient, signInCustomer } from "../helpers/customer-app.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { createPayment, freshEmail, payStepByStep } from "../helpers/on-session.js";
import { registerTeardown } from "../helpers/teardown.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// The customer app's sign-in reveals nothing and keeps tenants apart
// (docs/reference/security.md#customer-app-sign-in): the same answer, in the same time, whether a
// merchant knows the e-mail or not, also when the mail server is slow or down; the code is readable
// by no merchant's sandbox key; the customer sees only what they did; the per-address rate limit
// counts a host's loopback addresses as one.

const noLimits = { SIGN_IN_RATE_LIMIT_PER_EMAIL: "100000", SIGN_IN_RATE_LIMIT_PER_ADDRESS: "100000" };

/** An SMTP relay that accepts each message `delayMs` after its data (pooled connections too), and keeps who was mailed. */
async function slowSmtp(delayMs: number): Promise<{ port: number; recipients: string[] }> {
  const recipients: string[] = [];
  const smtp = new SMTPServer({
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onRcptTo: (address, _session, callback) => {
      recipients.push(address.address);
      callback();
    },
    onData: (stream, _session, callback) => {
      stream.resume();
      stream.on("end", () => setTimeout(callback, delayMs));
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  registerTeardown("service", () => new Promise<void>((resolve) => smtp.close(() => resolve())));
  return { port: (smtp.server.address() as AddressInfo).port, recipients };
}

/** A port nothing listens on: the mail server is down. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

function productionWithSmtp(port: number): Promise<TestServer> {
  return startTestServer({
    env: {
      MODE: "production",
      SMTP_HOST: "127.0.0.1",
      SMTP_PORT: String(port),
      SMTP_FROM: "pay@example.jp",
      ...noLimits,
    },
  });
}

/** POST /app/v1/sign-in/code: its status and how long it took, in ms. */
async function timedSend(server: TestServer, email: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${server.url}/app/v1/sign-in/code`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email }),
  });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - started };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Known e-mails: a customer of the test merchant each. */
async function knownEmails(server: TestServer, count: number): Promise<string[]> {
  const emails = Array.from({ length: count }, () => freshEmail("known"));
  for (const email of emails) await seedActiveCustomer(server, { email });
  return emails;
}

describe("the same answer, in the same time, known or not", () => {
  it("with a slow mail server: medians within a small bound, and only the known e-mail is mailed", async () => {
    // A second per connection: far above this machine's noise, so waiting for it could not hide.
    const smtp = await slowSmtp(1000);
    const server = await productionWithSmtp(smtp.port);
    try {
      const known = await knownEmails(server, 9);
      const unknown = known.map(() => freshEmail("unknown"));
      await timedSend(server, freshEmail("warm-up"));
      const times = { known: [] as number[], unknown: [] as number[] };
      for (let n = 0; n < known.length; n++) {
        const [a, b] = [await timedSend(server, known[n]), await timedSend(server, unknown[n])];
        expect([a.status, b.status]).toEqual([200, 200]);
        times.known.push(a.ms);
        times.unknown.push(b.ms);
      }
      // The mail server's second is spent by the job, never by the answer.
      expect(Math.abs(median(times.known) - median(times.unknown))).toBeLessThan(300);
      for (let waited = 0; smtp.recipients.length < known.length && waited < 10_000; waited += 50) await sleep(50);
      expect(new Set(smtp.recipients)).toEqual(new Set(known));
    } finally {
      await server.stop();
    }
  });

  it("with the mail server down: the same status for a known and an unknown e-mail", async () => {
    const server = await productionWithSmtp(await closedPort());
    try {
      const [known] = await knownEmails(server, 1);
      expect((await timedSend(server, known)).status).toBe(200);
      expect((await timedSend(server, freshEmail("unknown"))).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});

describe("sandbox tenants apart", () => {
  let server: TestServer;
  let shared: string;
  let paidChargeId: string;
  let abandonedChargeId: string;
  let abandonedContractId: string;
  let expiredChargeId: string;
  let a: Awaited<ReturnType<TestServer["newMerchant"]>>;

  beforeAll(async () => {
    server = await startTestServer({ env: { WORKERS: "off", ...noLimits } });
    a = await server.newMerchant("Shop A");
    const b = server.merchant;
    shared = freshEmail("shared");
    // A knows the e-mail first: a link never opened, and one left to expire.
    const abandoned = await createPayment(server, { buyer: { email: shared } }, a.api_key);
    abandonedChargeId = abandoned.charge!.chargeId;
    abandonedContractId = abandoned.charge!.contractId;
    const expiring = await createPayment(server, { buyer: { email: shared } }, a.api_key);
    expiredChargeId = expiring.charge!.chargeId;
    server.clock.advance(60_000);
    // B's customer with the same e-mail pays.
    const paid = await createPayment(
      server,
      { buyer: { email: shared }, charge: { price: 7700, description: "B secret order #77" } },
      b.api_key,
    );
    await payStepByStep(server, paid.paymentLink!.url, { email: shared, apiKey: b.api_key });
    paidChargeId = paid.charge!.chargeId;
    server.clock.advance(91 * 60_000);
    await server.jobs.drain();
    const expired = await server.client(PaymentService, a.api_key).getCharge({ charge: expiredChargeId });
    expect(expired.charge?.chargeStatus).toBe(ChargeStatus.FAILURE);
  });
  afterAll(async () => server?.stop());

  it("the sign-in code is in no merchant's sandbox mailbox: A's sk_test key cannot sign in as B's customer", async () => {
    await customerAppClient(server).client.sendSignInCode({ email: shared });
    await server.jobs.drain();
    for (const key of [a.api_key, server.merchant.api_key]) {
      const { messages } = await server.client(SandboxService, key).listMailbox({ email: shared });
      expect(messages.filter((m) => m.subject.includes("ログインコード"))).toEqual([]);
    }
    expect((await readOperatorMailbox(server.ctx, shared))[0].subject).toContain("ログインコード");
  });

  it("the customer sees only their own acts: B's paid charge; A's unopened and expired links are not theirs", async () => {
    server.clock.advance(31_000);
    const app = await signInCustomer(server, shared);
    const { transactions } = await app.client.listCustomerTransactions({});
    expect(transactions.map((t) => t.chargeId)).toEqual([paidChargeId]);
    const { merchants } = await app.client.listCustomerMerchants({});
    expect(merchants.map((m) => m.merchantId)).toEqual([server.merchant.merchant_id]);
    for (const chargeId of [abandonedChargeId, expiredChargeId]) {
      const refused = await app.client.getReceipt({ chargeId }).catch((e) => ConnectError.from(e));
      expect((refused as ConnectError).code).toBe(Code.NotFound);
    }
    // A contract the customer never agreed to takes no stop request (nothing reaches merchant A).
    const stop = await app.client.requestStop({ contractId: abandonedContractId }).catch((e) => ConnectError.from(e));
    expect((stop as ConnectError).code).toBe(Code.NotFound);
  });

  it("codes are mailed per e-mail: the right one from the operator's mailbox signs in, once", async () => {
    server.clock.advance(31_000);
    const { client } = customerAppClient(server);
    await client.sendSignInCode({ email: shared });
    const code = await appSignInCode(server, shared);
    expect((await client.verifySignInCode({ email: shared, code })).verified).toBe(true);
  });
});

/** POST /app/v1/sign-in/code from a chosen loopback source address: its status. */
function sendFrom(server: TestServer, localAddress: string, email: string): Promise<number> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, localAddress, method: "POST", path: "/app/v1/sign-in/code", agent: false },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.setHeader("content-type", "application/json");
    req.end(JSON.stringify({ email }));
  });
}

describe("the per-address rate limit", () => {
  it("counts every loopback source address as one client", async () => {
    const limited = await startTestServer({
      env: { WORKERS: "off", SIGN_IN_RATE_LIMIT_PER_EMAIL: "100", SIGN_IN_RATE_LIMIT_PER_ADDRESS: "4" },
    });
    try {
      const statuses: number[] = [];
      for (let n = 2; n <= 7; n++) statuses.push(await sendFrom(limited, `127.0.0.${n}`, freshEmail("hop")));
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    } finally {
      await limited.stop();
    }
  });
});
