import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import {
  ChargeStatus,
  ContractStatus,
  ErrorType,
  KycStatus,
  PaymentAuthorizationStatus,
  RefundStatus,
} from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { limits } from "../../src/domain/limits.js";
import { chargeRow } from "../helpers/charges.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import {
  dashboardBrowser,
  dashboardPassword,
  enrolTotp,
  signedInUser,
  refusal,
  totpCodeAt,
  type DashboardBrowser,
} from "../helpers/dashboard.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

let server: TestServer;
let ops: DashboardBrowser & { email: string };

beforeAll(async () => {
  server = await startTestServer({ env: { WORKERS: "off", API_KEY_CACHE_MS: "0" } });
  ops = await signedInUser(server);
});
afterAll(async () => server?.stop());

/** Another session of an existing user (one password check, where a new user costs two). */
async function signedInAgain(email: string): Promise<DashboardBrowser> {
  const browser = dashboardBrowser(server);
  await browser.client.signIn({ email, password: dashboardPassword });
  return browser;
}

describe("sign-in and the session cookie", () => {
  it("sets an HttpOnly SameSite=Strict session cookie (not Secure over plain HTTP) and a CSRF cookie", async () => {
    const browser = dashboardBrowser(server);
    const { user, csrfToken } = await browser.client.signIn({
      email: ops.email.toUpperCase(),
      password: dashboardPassword,
    });
    expect(user).toMatchObject({
      email: ops.email,
      merchantId: server.merchant.merchant_id,
      merchantName: "Test Shop",
      totpEnabled: false,
    });
    const session = browser.lastSetCookie.find((c) => c.startsWith("furikomi_session="))!;
    expect(session).toMatch(/; HttpOnly/);
    expect(session).toMatch(/; SameSite=Strict/);
    expect(session).not.toMatch(/Secure/);
    const csrf = browser.lastSetCookie.find((c) => c.startsWith("furikomi_csrf="))!;
    expect(csrf).not.toMatch(/HttpOnly/);
    expect(browser.cookies.get("furikomi_csrf")).toBe(csrfToken);
    expect((await browser.client.getSession({})).user?.email).toBe(ops.email);
  });

  it("refuses a wrong password and an unknown e-mail alike", async () => {
    const browser = dashboardBrowser(server);
    const wrong = await refusal(browser.client.signIn({ email: ops.email, password: "not the password" }));
    const unknown = await refusal(browser.client.signIn({ email: "nobody@example.jp", password: dashboardPassword }));
    expect(wrong).toEqual(unknown);
    expect(wrong).toMatchObject({ code: Code.Unauthenticated, reason: "SIGN_IN_FAILED" });
    expect(browser.cookies.size).toBe(0);
  });

  it("refuses every call without the CSRF header, or with another session's token", async () => {
    const browser = await signedInAgain(ops.email);
    browser.sendCsrf = false;
    expect(await refusal(browser.client.getSession({}))).toMatchObject({
      code: Code.Unauthenticated,
      reason: "CSRF_TOKEN_INVALID",
    });
    expect(await refusal(browser.client.searchCustomers({}))).toMatchObject({ reason: "CSRF_TOKEN_INVALID" });
    const other = await signedInAgain(ops.email);
    browser.cookies.set("furikomi_csrf", other.cookies.get("furikomi_csrf")!);
    browser.sendCsrf = true;
    expect(await refusal(browser.client.getSession({}))).toMatchObject({ reason: "CSRF_TOKEN_INVALID" });
  });

  it("refuses calls without a session cookie", async () => {
    expect(await refusal(dashboardBrowser(server).client.getSession({}))).toMatchObject({
      code: Code.Unauthenticated,
      reason: "SESSION_REQUIRED",
    });
  });

  it("ends a session after 30 idle minutes, and keeps one in use alive", async () => {
    const idle = await signedInAgain(ops.email);
    const busy = await signedInAgain(ops.email);
    server.clock.advance(20 * 60_000);
    await busy.client.getSession({});
    await ops.client.getSession({}); // the suite's own session stays alive too
    server.clock.advance(11 * 60_000);
    expect(await refusal(idle.client.getSession({}))).toMatchObject({ reason: "SESSION_REQUIRED" });
    expect((await busy.client.getSession({})).user?.email).toBe(ops.email);
  });

  it("signs out: the cookies are cleared and the session no longer works", async () => {
    const browser = await signedInAgain(ops.email);
    const kept = new Map(browser.cookies);
    await browser.client.signOut({});
    expect(browser.cookies.size).toBe(0);
    for (const [k, v] of kept) browser.cookies.set(k, v);
    expect(await refusal(browser.client.getSession({}))).toMatchObject({ reason: "SESSION_REQUIRED" });
  });
});

describe("TOTP enrolment", () => {
  it("gives a secret, its otpauth URI and a QR code, and is confirmed by a first code", async () => {
    const browser = await signedInUser(server);
    const begun = await browser.client.beginTotpEnrollment({});
    expect(begun.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(begun.otpauthUri);
    expect(uri.protocol).toBe("otpauth:");
    expect(uri.searchParams.get("secret")).toBe(begun.secret);
    expect(uri.searchParams.get("issuer")).toBe("furikomi");
    expect(begun.qrSvg).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);

    const now = server.clock.now();
    const wrong = totpCodeAt(begun.secret, new Date(now.getTime() + 10 * 60_000));
    expect(await refusal(browser.client.confirmTotpEnrollment({ code: wrong }))).toMatchObject({
      code: Code.InvalidArgument,
      reason: "TOTP_CODE_INVALID",
    });
    expect((await browser.client.getSession({})).user?.totpEnabled).toBe(false);

    expect((await browser.client.confirmTotpEnrollment({ code: totpCodeAt(begun.secret, now) })).totpEnabled).toBe(
      true,
    );
    expect((await browser.client.getSession({})).user?.totpEnabled).toBe(true);
    expect(await refusal(browser.client.beginTotpEnrollment({}))).toMatchObject({
      code: Code.FailedPrecondition,
      reason: "TOTP_ALREADY_ENABLED",
    });
  });

  it("never accepts the enrolment's code again: confirming a batch with it is refused", async () => {
    const browser = await signedInUser(server);
    const secret = await enrolTotp(server, browser);
    const enrolmentCode = totpCodeAt(secret, server.clock.now());
    const file = new TextEncoder().encode(
      "customer_email,customer_id,price,description,metadata\nx@example.jp,,100,tea,\n",
    );
    const batch = await browser.client.uploadCsvBatch({ fileName: "once.csv", content: file });
    const replay = await refusal(
      browser.client.confirmCsvBatch({ batchId: batch.batchId, challengeId: batch.challengeId, code: enrolmentCode }),
    );
    expect(replay).toMatchObject({ code: Code.InvalidArgument, reason: "TOTP_CODE_INVALID" });
    expect(replay.message).toMatch(/already used/);
    const next = totpCodeAt(secret, server.clock.advance(30_000));
    const { batch: confirmed } = await browser.client.confirmCsvBatch({
      batchId: batch.batchId,
      challengeId: batch.challengeId,
      code: next,
    });
    expect(confirmed).toMatchObject({ status: "completed", failed: 1 });
  });
});

describe("customers, charges and refunds", () => {
  let customerId: string;
  let paidChargeId: string;
  let failedChargeId: string;

  beforeAll(async () => {
    ({ customerId } = await seedActiveCustomer(server, { email: "hanako@example.jp", balance: 5000 }));
    const api = server.client(PaymentService);
    paidChargeId = (
      await api.createOffSessionPaymentAsync({ customerId, charge: { price: 3000, description: "monthly box" } })
    ).chargeId;
    failedChargeId = (
      await api.createOffSessionPaymentAsync({ customerId, charge: { price: 9000, description: "too much" } })
    ).chargeId;
    await server.jobs.drain();
  });

  it("finds a customer by e-mail (any case) and shows statuses, contracts and every charge with its error", async () => {
    const { customers } = await ops.client.searchCustomers({ email: "Hanako@Example.jp" });
    expect(customers.map((c) => c.id)).toEqual([customerId]);
    const detail = await ops.client.getCustomerDetail({ customerId });
    expect(detail.customer?.status).toMatchObject({
      payment: PaymentAuthorizationStatus.AUTHORIZED,
      kyc: KycStatus.NOT_SUBMITTED,
    });
    expect(detail.contracts.map((c) => c.status)).toEqual([ContractStatus.ACTIVATED]);
    const byId = new Map(detail.charges.map((c) => [c.chargeId, c]));
    expect(byId.get(paidChargeId)?.chargeStatus).toBe(ChargeStatus.SUCCESS);
    expect(byId.get(failedChargeId)?.chargeStatus).toBe(ChargeStatus.FAILURE);
    expect(byId.get(failedChargeId)?.error).toMatchObject({
      code: ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS,
      message: "Customer has insufficient funds",
    });
  });

  it("lists charges newest first, by page, and filtered by customer", async () => {
    const first = await ops.client.listCharges({ pageSize: 1 });
    expect(first.charges).toHaveLength(1);
    expect(first.nextPageToken).not.toBe("");
    const second = await ops.client.listCharges({ pageSize: 1, pageToken: first.nextPageToken });
    expect(second.charges[0].chargeId).not.toBe(first.charges[0].chargeId);
    const mine = await ops.client.listCharges({ customerId });
    expect(mine.charges.map((c) => c.chargeId).sort()).toEqual([paidChargeId, failedChargeId].sort());
  });

  it("refunds a charge through the refund flow, and the charge detail shows the refund", async () => {
    const { result } = await ops.client.refundCharge({
      refund: { chargeId: paidChargeId, amount: 1000, reason: "damaged" },
    });
    expect(result?.refund).toMatchObject({ chargeId: paidChargeId, amount: 1000 });
    expect(result?.charge?.refundableAmount).toBe(2000);
    const detail = await ops.client.getChargeDetail({ chargeId: paidChargeId });
    expect(detail.customer?.id).toBe(customerId);
    expect(detail.charge?.refunds.map((r) => [r.amount, r.status !== RefundStatus.FAILED])).toEqual([[1000, true]]);
    const refused = await refusal(ops.client.refundCharge({ refund: { chargeId: failedChargeId } }));
    expect(refused.message).toBe("transaction is not in a cancellable state");
  });

  it("shows nothing of another merchant", async () => {
    const other = await server.newMerchant("Other Shop");
    const stranger = await signedInUser(server, { merchantId: other.merchant_id });
    expect((await stranger.client.searchCustomers({ email: "hanako@example.jp" })).customers).toEqual([]);
    expect(await refusal(stranger.client.getCustomerDetail({ customerId }))).toMatchObject({ code: Code.NotFound });
    expect(await refusal(stranger.client.getChargeDetail({ chargeId: paidChargeId }))).toMatchObject({
      code: Code.NotFound,
    });
    expect(await refusal(stranger.client.refundCharge({ refund: { chargeId: paidChargeId } }))).toMatchObject({
      message: "transaction does not belong to the merchant",
    });
  });

  it("lists the charge events with their deliveries and redelivers one", async () => {
    const { events } = await ops.client.listWebhookEvents({ filter: { chargeId: failedChargeId } });
    expect(events.map((e) => e.eventTypeName)).toContain("EVENT_TYPE_CHARGE_FAIL");
    const event = events[0];
    const { event: again } = await ops.client.redeliverWebhookEvent({ id: event.id });
    expect(again?.id).toBe(event.id);
    expect(await refusal(ops.client.redeliverWebhookEvent({ id: "mwh-unknown" }))).toMatchObject({
      code: Code.NotFound,
    });
  });
});

describe("API keys and webhook settings", () => {
  it("creates a key that works at once and revokes it", async () => {
    const before = (await ops.client.listApiKeys({})).keys;
    const { key, secret } = await ops.client.createApiKey({});
    expect(secret).toMatch(/^sk_test_/);
    expect(key?.prefix).toBe(secret.slice(0, 12));
    const listed = (await ops.client.listApiKeys({})).keys;
    expect(listed).toHaveLength(before.length + 1);
    expect(listed.every((k) => !Object.values(k).includes(secret))).toBe(true);

    const api = server.client(PaymentService, secret);
    await api.listCustomers({});
    const revoking = server.clock.now().getTime();
    const { key: revoked } = await ops.client.revokeApiKey({ id: key!.id });
    const revokedAt = timestampDate(revoked!.revokedAt!).getTime();
    expect(revokedAt).toBeGreaterThanOrEqual(revoking);
    expect(revokedAt).toBeLessThanOrEqual(server.clock.now().getTime());
    await expect(api.listCustomers({})).rejects.toMatchObject({ code: Code.Unauthenticated });
    await server.client(PaymentService).listCustomers({}); // the merchant's first key still works
  });

  it("sets the webhook URL and rotates the signing secret", async () => {
    const before = await ops.client.getWebhookSettings({});
    const updated = await ops.client.updateWebhookSettings({ url: "http://127.0.0.1:9/hooks", rotateSecret: true });
    expect(updated.url).toBe("http://127.0.0.1:9/hooks");
    expect(updated.secret).toMatch(/^whsec_/);
    expect(updated.secret).not.toBe(before.secret);
    expect((await ops.client.getWebhookSettings({})).url).toBe("http://127.0.0.1:9/hooks");
    expect(await refusal(ops.client.updateWebhookSettings({ url: "not a url" }))).toMatchObject({
      code: Code.InvalidArgument,
    });
  });
});

describe("sandbox controls", () => {
  it("reads and sets a customer's simulated bank account, and the bank's maintenance", async () => {
    const { customerId } = await seedActiveCustomer(server, { balance: 1234 });
    expect(Number((await ops.client.getSandboxBankAccount({ customerId })).account?.balance)).toBe(1234);
    const { account } = await ops.client.configureSandboxBankAccount({
      settings: { customerId, balance: 50n, quota: 10n, reject: true },
    });
    expect([Number(account?.balance), Number(account?.quota), account?.reject]).toEqual([50, 10, true]);
    expect(
      (await ops.client.setSandboxBankMaintenance({ settings: { underMaintenance: true } })).underMaintenance,
    ).toBe(true);
    expect(
      (await ops.client.setSandboxBankMaintenance({ settings: { underMaintenance: false } })).underMaintenance,
    ).toBe(false);
  });

  it("reads the sandbox mailbox", async () => {
    const { messages } = await ops.client.listSandboxMailbox({ email: "nobody-wrote@example.jp" });
    expect(messages).toEqual([]);
  });
});

describe("a customer's page past its charge limit (docs/reference/limits.md#the-catalogue)", () => {
  it("shows the most recent customerDetailChargesMax charges and says when there are more", async () => {
    const { customerId } = await seedActiveCustomer(server);
    const merchantId = server.merchant.merchant_id;
    const rows = Array.from({ length: limits.customerDetailChargesMax }, () =>
      chargeRow({ merchantId, customerId }, server.clock.now()),
    );
    await server.ctx.tx.write((trx) => trx.insertInto("charges").values(rows).execute());
    const atTheLimit = await ops.client.getCustomerDetail({ customerId });
    expect([atTheLimit.charges.length, atTheLimit.chargesTruncated]).toEqual([limits.customerDetailChargesMax, false]);

    server.clock.advance(1000);
    const newest = chargeRow({ merchantId, customerId }, server.clock.now());
    await server.ctx.tx.write((trx) => trx.insertInto("charges").values(newest).execute());
    const past = await ops.client.getCustomerDetail({ customerId });
    expect([past.charges.length, past.chargesTruncated]).toEqual([limits.customerDetailChargesMax, true]);
    expect(past.charges[0].chargeId).toBe(newest.id);
  });
});
