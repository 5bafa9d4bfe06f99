import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { ChargeStatus, ContractStatus, ErrorType, RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import {
  appSignInCode,
  customerAppClient,
  customerWithTwoMerchants,
  signInCustomer,
  type CustomerWorld,
} from "../helpers/customer-app.js";
import { signedInUser } from "../helpers/dashboard.js";
import { readOperatorMailbox } from "../../src/flows/sandbox.js";
import { eventsOfType, freshEmail } from "../helpers/on-session.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// The customer's own view (docs/guide/customer-app.md), over the wire: sign-in by e-mail code,
// what a customer with two merchants sees, receipts, stop requests, and that nobody sees another
// e-mail's records, even with real ids.

let server: TestServer;
let world: CustomerWorld;

beforeAll(async () => {
  // Sign-in's real-time rate limits are exercised on their own server below.
  server = await startTestServer({
    env: { WORKERS: "off", SIGN_IN_RATE_LIMIT_PER_EMAIL: "1000", SIGN_IN_RATE_LIMIT_PER_ADDRESS: "1000" },
  });
  world = await customerWithTwoMerchants(server);
});
afterAll(async () => server?.stop());

async function refusal(call: Promise<unknown>): Promise<{ code: Code; reason: string | undefined }> {
  const error = await call.then(
    () => undefined,
    (e) => ConnectError.from(e),
  );
  expect(error, "the call should have been refused").toBeInstanceOf(ConnectError);
  return { code: error!.code, reason: error!.findDetails(ErrorInfoSchema)[0]?.reason };
}

describe("signing in", () => {
  it("sends a code to a known e-mail only, and answers an unknown one the same way", async () => {
    const known = customerAppClient(server).client;
    const stranger = freshEmail("stranger");
    const [a, b] = await Promise.all([
      known.sendSignInCode({ email: world.email }),
      known.sendSignInCode({ email: stranger }),
    ]);
    expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
    expect(Number(a.expiresAt!.seconds) - Number(a.resendAvailableAt!.seconds)).toBe(
      Number(b.expiresAt!.seconds) - Number(b.resendAvailableAt!.seconds),
    );
    await server.jobs.drain();
    // Mailed to the known e-mail only, and into the operator's sandbox mailbox: no merchant's key reads it.
    const [message] = await readOperatorMailbox(server.ctx, world.email);
    expect(message.subject).toContain("ログインコード");
    expect(message.code).toMatch(/^[0-9]{6}$/);
    expect(await readOperatorMailbox(server.ctx, stranger)).toHaveLength(0);
    for (const merchant of [server.merchant, world.second]) {
      for (const email of [stranger, world.email]) {
        const none = await server.client(SandboxService, merchant.api_key).listMailbox({ email });
        expect(none.messages.filter((m) => m.subject.includes("ログインコード"))).toHaveLength(0);
      }
    }
    // A wrong code for the stranger answers as a wrong code for the customer would.
    const wrong = await known.verifySignInCode({ email: stranger, code: "000000" });
    expect(wrong).toMatchObject({ verified: false, attemptsLeft: 4, csrfToken: "" });
  });

  it("limits attempts: five wrong codes spend the code, and a new one is needed", async () => {
    const email = world.email;
    const { client } = customerAppClient(server);
    server.clock.advance(31_000);
    await client.sendSignInCode({ email });
    const right = await appSignInCode(server, email);
    const wrong = right === "111111" ? "222222" : "111111";
    for (let left = 4; left >= 0; left--)
      expect(await client.verifySignInCode({ email, code: wrong })).toMatchObject({
        verified: false,
        attemptsLeft: left,
      });
    expect((await refusal(client.verifySignInCode({ email, code: right }))).code).toBe(Code.FailedPrecondition);
    // And a second send within 30 seconds is refused.
    expect((await refusal(client.sendSignInCode({ email }))).code).toBe(Code.ResourceExhausted);
  });

  it("sets HttpOnly, SameSite=Strict cookies on Path=/app; calls need them and the CSRF header", async () => {
    server.clock.advance(31_000);
    const res = await fetch(`${server.url}/app/v1/sign-in/code`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: world.email }),
    });
    expect(res.status).toBe(200);
    const verify = await fetch(`${server.url}/app/v1/sign-in/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: world.email, code: await appSignInCode(server, world.email) }),
    });
    expect(verify.status).toBe(200);
    const cookies = verify.headers.getSetCookie();
    expect(cookies.find((c) => c.startsWith("furikomi_app_session="))).toMatch(/Path=\/app; SameSite=Strict; HttpOnly/);
    expect(cookies.find((c) => c.startsWith("furikomi_app_csrf="))).toMatch(/Path=\/app; SameSite=Strict/);
    const { csrfToken } = await verify.json();
    const cookie = cookies.map((c) => c.split(";")[0]).join("; ");

    const merchants = await fetch(`${server.url}/app/v1/merchants`, { headers: { cookie, "x-csrf-token": csrfToken } });
    expect(merchants.status).toBe(200);
    expect(merchants.headers.get("cache-control")).toBe("no-store");
    const noCsrf = await fetch(`${server.url}/app/v1/merchants`, { headers: { cookie } });
    expect(noCsrf.status).toBe(401);
    expect(JSON.stringify(await noCsrf.json())).toContain("CSRF_TOKEN_INVALID");
    const noCookie = await fetch(`${server.url}/app/v1/merchants`, { headers: { "x-csrf-token": csrfToken } });
    expect(noCookie.status).toBe(401);
    expect(JSON.stringify(await noCookie.json())).toContain("SESSION_REQUIRED");

    const out = await fetch(`${server.url}/app/v1/sign-out`, {
      method: "POST",
      headers: { cookie, "x-csrf-token": csrfToken, "content-type": "application/json" },
      body: "{}",
    });
    expect(out.status).toBe(200);
    const after = await fetch(`${server.url}/app/v1/merchants`, { headers: { cookie, "x-csrf-token": csrfToken } });
    expect(after.status).toBe(401);
  });
});

describe("what a signed-in customer sees", () => {
  let app: Awaited<ReturnType<typeof signInCustomer>>;
  beforeAll(async () => {
    server.clock.advance(31_000);
    app = await signInCustomer(server, world.email);
  });

  it("answers on the plain /app/v1 paths as on RPCs, with the cookie and CSRF header", async () => {
    const headers = {
      cookie: [...app.cookies].map(([name, value]) => `${name}=${value}`).join("; "),
      "x-csrf-token": app.cookies.get("furikomi_app_csrf") ?? "",
    };
    const month = new Date(server.clock.now().getTime() + 9 * 3_600_000).toISOString().slice(0, 7);
    const list = await fetch(`${server.url}/app/v1/transactions?month=${month}&page_size=1`, { headers });
    expect(list.status).toBe(200);
    const page = await list.json();
    expect(page.transactions.map((t: { chargeId: string }) => t.chargeId)).toEqual([world.failedChargeId]);
    expect(page.nextPageToken).not.toBe("");
    const receipt = await fetch(`${server.url}/app/v1/transactions/${world.refundedChargeId}/receipt`, { headers });
    expect(await receipt.json()).toMatchObject({ receipt: { chargeId: world.refundedChargeId, amount: 1500 } });
    const session = await fetch(`${server.url}/app/v1/session`, { headers });
    expect((await session.json()).email).toBe(world.email);
  });

  it("the session names the proven e-mail", async () => {
    expect((await app.client.getCustomerSession({})).email).toBe(world.email);
  });

  it("both merchants, with each contract's mandate (masked account, consent date) and contact", async () => {
    const { merchants } = await app.client.listCustomerMerchants({});
    expect(merchants.map((m) => m.name)).toEqual(["Test Shop", "Second Shop 二号店"]);
    const [first, second] = merchants;
    expect(first.contracts.map((c) => c.contractId)).toEqual([world.firstContractId]);
    expect(second.contracts.map((c) => c.contractId)).toEqual([world.secondContractId]);
    for (const contract of [first.contracts[0], second.contracts[0]]) {
      expect(contract.status).toBe(ContractStatus.ACTIVATED);
      expect(contract.account?.maskedAccountNumber).toMatch(/^\*+567$/);
      expect(contract.account?.display).not.toContain("1234567");
      expect(contract.consentedAt).toBeDefined();
    }
  });

  it("every charge newest first, with the failure's customer message and the refund under its charge", async () => {
    const { transactions, nextPageToken } = await app.client.listCustomerTransactions({});
    expect(nextPageToken).toBe("");
    expect(transactions.map((t) => t.chargeId)).toEqual([
      world.failedChargeId,
      world.paidChargeId,
      world.refundedChargeId,
    ]);
    const [failed, paid, refunded] = transactions;
    expect(failed).toMatchObject({
      status: ChargeStatus.FAILURE,
      statusLabel: "失敗",
      merchantName: "Test Shop",
      finalAmount: 3000,
      receiptAvailable: false,
      failure: { errorType: ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS },
    });
    expect(failed.failure?.messageJa).toContain("残高が不足");
    expect(paid).toMatchObject({
      status: ChargeStatus.SUCCESS,
      merchantName: "Second Shop 二号店",
      initialAmount: 2400,
      discount: 0,
      finalAmount: 2400,
    });
    expect(refunded.refunds).toHaveLength(1);
    expect(refunded.refunds[0]).toMatchObject({ amount: 500, status: RefundStatus.PENDING, statusLabel: "返金処理中" });
  });

  it("pages with a cursor, and filters by merchant and by month", async () => {
    const first = await app.client.listCustomerTransactions({ pageSize: 2 });
    expect(first.transactions).toHaveLength(2);
    const rest = await app.client.listCustomerTransactions({ pageSize: 2, pageToken: first.nextPageToken });
    expect(rest.transactions.map((t) => t.chargeId)).toEqual([world.refundedChargeId]);
    expect(rest.nextPageToken).toBe("");

    const second = await app.client.listCustomerTransactions({ merchantId: world.second.merchant_id });
    expect(second.transactions.map((t) => t.chargeId)).toEqual([world.paidChargeId]);

    const now = new Date(server.clock.now().getTime() + 9 * 3_600_000).toISOString().slice(0, 7);
    expect((await app.client.listCustomerTransactions({ month: now })).transactions).toHaveLength(3);
    expect((await app.client.listCustomerTransactions({ month: "2001-01" })).transactions).toHaveLength(0);
    expect((await refusal(app.client.listCustomerTransactions({ month: "2026-13" }))).code).toBe(Code.InvalidArgument);
  });

  it("a receipt for a successful charge; none for a failed one", async () => {
    const { receipt } = await app.client.getReceipt({ chargeId: world.paidChargeId });
    expect(receipt).toMatchObject({
      chargeId: world.paidChargeId,
      merchantName: "Second Shop 二号店",
      amount: 2400,
      customerEmail: world.email,
    });
    const refused = await refusal(app.client.getReceipt({ chargeId: world.failedChargeId }));
    expect(refused).toEqual({ code: Code.FailedPrecondition, reason: "RECEIPT_NOT_AVAILABLE" });
  });

  it("a stop request is recorded once, sent to the merchant as a webhook event, and leaves the contract as it was", async () => {
    const made = await app.client.requestStop({ contractId: world.secondContractId, reason: "引っ越しのため" });
    expect(made.created).toBe(true);
    expect(made.stopRequest).toMatchObject({ contractId: world.secondContractId, reason: "引っ越しのため" });
    const again = await app.client.requestStop({ contractId: world.secondContractId });
    expect(again).toMatchObject({ created: false, stopRequest: { id: made.stopRequest!.id } });

    const events = await eventsOfType(server, world.second.merchant_id, "EVENT_TYPE_CONTRACT_STOP_REQUESTED");
    expect(events).toEqual([
      expect.objectContaining({
        stop_request_id: made.stopRequest!.id,
        token_id: world.secondContractId,
        contract_status: "CONTRACT_STATUS_ACTIVATED",
        merchant_name: "Second Shop 二号店",
        reason: "引っ越しのため",
      }),
    ]);
    const contract = await server
      .client(PaymentService, world.second.api_key)
      .getContract({ contract: world.secondContractId });
    expect(contract.contract?.status).toBe(ContractStatus.ACTIVATED);

    const { merchants } = await app.client.listCustomerMerchants({});
    expect(merchants[1].contracts[0].stopRequest?.id).toBe(made.stopRequest!.id);

    // The merchant's dashboard shows it on the customer's page.
    const dashboard = await signedInUser(server, { merchantId: world.second.merchant_id });
    const detail = await dashboard.client.getCustomerDetail({ customerId: made.stopRequest!.customerId });
    expect(detail.stopRequests.map((r) => r.id)).toEqual([made.stopRequest!.id]);
  });
});

describe("authorisation: a customer never sees another e-mail's records", () => {
  it("another customer, signed in, gets not found for every real id of the first, and sees none of them", async () => {
    const other = await customerWithTwoMerchants(server, "other");
    server.clock.advance(31_000);
    const intruder = await signInCustomer(server, other.email);
    const own = await intruder.client.listCustomerTransactions({});
    const ids = own.transactions.map((t) => t.chargeId);
    expect(ids).toHaveLength(3);
    for (const id of [world.paidChargeId, world.refundedChargeId, world.failedChargeId]) {
      expect(ids).not.toContain(id);
      expect((await refusal(intruder.client.getReceipt({ chargeId: id }))).code).toBe(Code.NotFound);
    }
    for (const id of [world.firstContractId, world.secondContractId])
      expect((await refusal(intruder.client.requestStop({ contractId: id }))).code).toBe(Code.NotFound);
    // Filtering by the first customer's merchant shows only the intruder's own charges there.
    const there = await intruder.client.listCustomerTransactions({ merchantId: world.second.merchant_id });
    expect(there.transactions).toHaveLength(0);
    const { merchants } = await intruder.client.listCustomerMerchants({});
    const contracts = merchants.flatMap((m) => m.contracts.map((c) => c.contractId));
    expect(contracts).not.toContain(world.firstContractId);
    expect(contracts).not.toContain(world.secondContractId);
    // The same refusal as for an id that does not exist.
    expect(await refusal(intruder.client.getReceipt({ chargeId: "trx-00000000000000000000000000" }))).toEqual(
      await refusal(intruder.client.getReceipt({ chargeId: world.paidChargeId })),
    );
  });

  it("ten first sends at once for a never-seen e-mail store one code; the other nine are too soon", async () => {
    const { client } = customerAppClient(server);
    const email = freshEmail("burst");
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => client.sendSignInCode({ email })));
    const refused = outcomes.filter((o) => o.status === "rejected").map((o) => ConnectError.from(o.reason));
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    expect(refused.map((e) => e.findDetails(ErrorInfoSchema)[0]?.reason)).toEqual(
      Array(9).fill("SIGN_IN_CODE_TOO_SOON"),
    );
  });

  it("an e-mail no merchant knows signs in to an empty view", async () => {
    const { client } = customerAppClient(server);
    const stranger = freshEmail("nobody");
    await client.sendSignInCode({ email: stranger });
    // No mail was sent, so its code is unknown: the right answer cannot be given.
    expect(await client.verifySignInCode({ email: stranger, code: "123456" })).toMatchObject({ verified: false });
    expect((await refusal(client.listCustomerMerchants({}))).reason).toBe("SESSION_REQUIRED");
  });
});

describe("rate limits of signing in", () => {
  it("per e-mail and per client address, apart from the dashboard's", async () => {
    const limited = await startTestServer({
      env: { WORKERS: "off", SIGN_IN_RATE_LIMIT_PER_EMAIL: "2", SIGN_IN_RATE_LIMIT_PER_ADDRESS: "4" },
    });
    try {
      const { client } = customerAppClient(limited);
      const [first, second, third] = [freshEmail("rate"), freshEmail("rate"), freshEmail("rate")];
      await client.sendSignInCode({ email: first });
      expect(await refusal(client.sendSignInCode({ email: first }))).toEqual({
        code: Code.ResourceExhausted,
        reason: "SIGN_IN_CODE_TOO_SOON",
      });
      expect(await refusal(client.sendSignInCode({ email: first }))).toEqual({
        code: Code.ResourceExhausted,
        reason: "RATE_LIMITED",
      });
      await client.sendSignInCode({ email: second });
      expect(await refusal(client.sendSignInCode({ email: third }))).toEqual({
        code: Code.ResourceExhausted,
        reason: "RATE_LIMITED",
      });
    } finally {
      await limited.stop();
    }
  });
});
