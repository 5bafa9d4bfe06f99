import { readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  create,
  toJsonString,
  type DescField,
  type DescMessage,
  type DescMethod,
  type DescService,
} from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { HostedPageService } from "../../gen/payments/v1/hosted_page_service_pb.js";
import { DashboardService } from "../../gen/payments/v1/dashboard_service_pb.js";
import { CustomerAppService } from "../../gen/payments/v1/customer_app_service_pb.js";
import { SubscriptionService } from "../../gen/payments/v1/subscription_service_pb.js";
import { hashApiKey, newApiKey } from "../../src/domain/api-key.js";
import { newId } from "../../src/domain/ids.js";
import { rotateApiKey } from "../../src/flows/merchants.js";
import { insertApiKey } from "../../src/storage/merchants.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { createPayment, tokenOf } from "../helpers/on-session.js";
import { signedInUser } from "../helpers/dashboard.js";
import { accessOf } from "../../src/api/dashboard-access.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

/**
 * Every method of every service, found from the generated descriptors (nothing listed by hand),
 * called as someone who does not belong: no key, a revoked key, a key of the other mode, and
 * another merchant pointing at this merchant's ids. Each is refused, and no answer carries a byte
 * of the victim's data.
 */

const keyServices = [PaymentService, SubscriptionService, SandboxService];
/** Every service this file checks, by how its callers prove who they are. */
const checkedServices = [...keyServices, CustomerAppService, DashboardService, HostedPageService];
const unary = (service: DescService) => service.methods.filter((m) => m.methodKind === "unary");

/** The victim's data: ids of every kind, and the secrets and words only it should see. */
interface Victim {
  ids: Record<string, string>;
  secrets: string[];
}

let server: TestServer;
let victim: Victim;

beforeAll(async () => {
  server = await startTestServer();
  const key = server.merchant.api_key;
  const payments = server.client(PaymentService, key);
  const onSession = await createPayment(server, { buyer: { email: `victim.${Date.now()}@example.jp` } });
  const { customerId, contractId } = await seedActiveCustomer(server, {
    email: `victim.regular.${Date.now()}@example.jp`,
  });
  const paid = await payments.createOffSessionPayment({
    customerId,
    charge: { price: 5000, description: "victim order" },
    idempotencyKey: "victim-idem-1",
  });
  const asyncRequest = await payments.createOffSessionPaymentAsync({
    customerId,
    charge: { price: 700, description: "victim async" },
  });
  await server.jobs.drain();
  const refund = await payments.refund({ chargeId: paid.charge!.chargeId, amount: 1000 });
  const { events } = await payments.listEvents({});
  const keyRow = await server.ctx.tx.db
    .selectFrom("api_keys")
    .select("id")
    .where("merchant_id", "=", server.merchant.merchant_id)
    .executeTakeFirstOrThrow();
  victim = {
    ids: {
      customer: customerId,
      onSessionCustomer: onSession.charge!.customer?.id ?? "",
      contract: contractId,
      charge: paid.charge!.chargeId,
      onSessionCharge: onSession.charge!.chargeId,
      refund: refund.refund!.refundId,
      request: asyncRequest.requestId,
      event: events[0].id,
      paymentLinkUrl: onSession.paymentLink!.url,
      token: tokenOf(onSession.paymentLink!.url),
      idempotencyKey: "victim-idem-1",
      apiKeyId: keyRow.id,
      email: onSession.charge!.customer!.email,
      merchant: server.merchant.merchant_id,
    },
    secrets: [key, server.merchant.webhook_secret, "victim order", "victim async"],
  };
  expect(events.length).toBeGreaterThan(0);
});
afterAll(async () => server?.stop());

/** The victim's id a field of this name asks for, if it names one. */
function victimIdFor(field: DescField, method: DescMethod): string | undefined {
  const ids = victim.ids;
  switch (field.name) {
    case "customer":
    case "customer_id":
    case "merchant_customer_id":
      return ids.customer;
    case "charge":
    case "charge_id":
      return ids.charge;
    case "contract":
      return ids.contract;
    case "refund_id":
      return ids.refund;
    case "request_id":
      return ids.request;
    case "payment_link_url":
      return ids.paymentLinkUrl;
    case "token":
      return ids.token;
    case "email":
      // SignIn's is the user's own; UpdateSupportContact's is the merchant's own support address.
      return method.name === "SignIn" || method.name === "UpdateSupportContact" ? undefined : ids.email;
    case "id":
      return method.name === "RevokeApiKey" ? ids.apiKeyId : ids.event;
    case "idempotency_key":
      return method.name === "GetIdempotencyRecord" ? ids.idempotencyKey : undefined;
    case "batch_id":
      return newId("bat");
    default:
      return undefined;
  }
}

/** A well-formed request aimed at the victim's data: id fields carry its ids, the rest plausible values. */
function requestAimedAtVictim(method: DescMethod): { message: Record<string, unknown>; aimed: boolean } {
  let aimed = false;
  const fill = (desc: DescMessage): Record<string, unknown> => {
    const message: Record<string, unknown> = {};
    for (const field of desc.fields) {
      const id = field.fieldKind === "scalar" ? victimIdFor(field, method) : undefined;
      if (id !== undefined) {
        message[field.localName] = id;
        aimed = true;
      } else if (field.fieldKind === "message" && !field.message.typeName.startsWith("google.protobuf.")) {
        message[field.localName] = fill(field.message);
      } else if (field.fieldKind === "scalar" && ["price", "amount"].includes(field.name)) {
        message[field.localName] = 100;
      } else if (field.fieldKind === "scalar" && field.name === "description") {
        message[field.localName] = "intruder";
      }
    }
    return message;
  };
  const message = fill(method.input);
  return { message, aimed };
}

/** What came back, as text: the response JSON, or the error's message and details. */
async function answerOf(call: Promise<unknown>, method: DescMethod): Promise<{ error?: ConnectError; text: string }> {
  try {
    const response = await call;
    return { text: toJsonString(method.output, response as never) };
  } catch (error) {
    const connectError = ConnectError.from(error);
    return {
      error: connectError,
      text:
        connectError.rawMessage +
        JSON.stringify(connectError.details, (_k, v) =>
          typeof v === "bigint" ? String(v) : v instanceof Uint8Array ? Buffer.from(v).toString("latin1") : v,
        ),
    };
  }
}

/** The victim's strings the intruder did not itself send: none may appear in an answer. */
function leaked(text: string, sent: Record<string, unknown>): string[] {
  const sentText = JSON.stringify(sent);
  return [...Object.values(victim.ids), ...victim.secrets].filter(
    (s) => s && !sentText.includes(s) && text.includes(s),
  );
}

function callAs<S extends DescService>(service: S, headers: Record<string, string>) {
  const transport = createConnectTransport({
    baseUrl: server.url,
    httpVersion: "1.1",
    interceptors: [
      (next) => (req) => {
        for (const [k, v] of Object.entries(headers)) req.header.set(k, v);
        return next(req);
      },
    ],
  });
  return createClient(service, transport) as unknown as Record<string, (req: unknown) => Promise<unknown>>;
}

async function expectEveryMethodRefused(
  services: DescService[],
  headers: Record<string, string>,
  expected: Code,
  grpcToo = false,
) {
  let calls = 0;
  for (const service of services) {
    for (const method of unary(service)) {
      const { message } = requestAimedAtVictim(method);
      const clients = [callAs(service, headers)];
      if (grpcToo)
        clients.push(
          server.client(service, headers.authorization?.replace(/^Bearer /, "") ?? "", { grpc: true }) as never,
        );
      for (const client of clients) {
        const { error, text } = await answerOf(
          client[method.localName](create(method.input, message as never)),
          method,
        );
        expect(error?.code, `${service.name}.${method.name}`).toBe(expected);
        expect(leaked(text, message), `${service.name}.${method.name}`).toEqual([]);
        calls++;
      }
    }
  }
  return calls;
}

describe("every service the server answers", () => {
  it("is checked here: a new service must say how its callers are checked", async () => {
    const generated = readdirSync(new URL("../../gen/payments/v1/", import.meta.url)).filter((f) =>
      f.endsWith("_service_pb.ts"),
    );
    const services: string[] = [];
    for (const file of generated) {
      const module = (await import(`../../gen/payments/v1/${file}`)) as Record<
        string,
        { kind?: string; typeName?: string }
      >;
      for (const value of Object.values(module)) if (value.kind === "service") services.push(value.typeName!);
    }
    expect(services.sort()).toEqual(checkedServices.map((service) => service.typeName).sort());
  });
});

describe("API-key services: PaymentService, SubscriptionService and SandboxService", () => {
  it("refuse every method without a key, over Connect and gRPC", async () => {
    const calls = await expectEveryMethodRefused(keyServices, {}, Code.Unauthenticated);
    const grpc = await expectEveryMethodRefused(keyServices, { authorization: "Bearer " }, Code.Unauthenticated, true);
    expect(calls).toBe(keyServices.reduce((sum, service) => sum + unary(service).length, 0));
    expect(grpc).toBe(2 * calls);
  });

  it("refuse every method with a malformed or unknown key", async () => {
    await expectEveryMethodRefused(keyServices, { authorization: "Basic dXNlcjpwYXNz" }, Code.Unauthenticated);
    await expectEveryMethodRefused(
      keyServices,
      { authorization: `Bearer sk_test_${"A".repeat(32)}` },
      Code.Unauthenticated,
    );
  });

  it("refuse every method with a revoked (rotated-away) key", async () => {
    const other = await server.newMerchant("Rotating Shop");
    await expect(server.client(PaymentService, other.api_key).listCustomers({})).resolves.toMatchObject({
      customers: [],
    });
    const rotated = await rotateApiKey(server.ctx, other.merchant_id);
    // A verified key is trusted for API_KEY_CACHE_MS (docs/reference/configuration.md); past it the revocation holds.
    server.clock.advance(server.ctx.config.apiKeyCacheMs + 1);
    await expectEveryMethodRefused(keyServices, { authorization: `Bearer ${other.api_key}` }, Code.Unauthenticated);
    await expect(server.client(PaymentService, rotated.api_key).listCustomers({})).resolves.toMatchObject({
      customers: [],
    });
  });

  it("refuse every method with a key of the other mode, even one stored for the merchant", async () => {
    const live = newApiKey("sk_live_");
    await insertApiKey(server.ctx.tx.db, {
      id: newId("key"),
      merchantId: server.merchant.merchant_id,
      keyHash: hashApiKey(live),
      prefix: live.slice(0, 12),
      createdAt: server.clock.now(),
    });
    await expectEveryMethodRefused(keyServices, { authorization: `Bearer ${live}` }, Code.Unauthenticated);
    const swapped = server.merchant.api_key.replace(/^sk_test_/, "sk_live_");
    await expectEveryMethodRefused(keyServices, { authorization: `Bearer ${swapped}` }, Code.Unauthenticated);
  });

  it("refuse another merchant's calls aimed at this merchant's ids, and leak nothing", async () => {
    const filteredLists = ["ListCustomers", "ListMailbox", "ListEvents", "ListSubscriptions"];
    const intruder = await server.newMerchant("Intruder");
    const before = await victimView();
    let aimedCalls = 0;
    for (const service of keyServices) {
      const client = server.client(service, intruder.api_key) as unknown as Record<
        string,
        (req: unknown) => Promise<unknown>
      >;
      for (const method of unary(service)) {
        const { message, aimed } = requestAimedAtVictim(method);
        const answer = await answerOf(client[method.localName](create(method.input, message as never)), method);
        const where = `${service.name}.${method.name} ${JSON.stringify(message)}`;
        expect(leaked(answer.text, message), where).toEqual([]);
        // Lists filtered by a foreign id answer an empty page (checked above to leak nothing).
        if (aimed && !filteredLists.includes(method.name)) {
          expect(
            isRefusal(method, answer),
            `${where}: ${answer.error?.code} ${answer.error?.rawMessage ?? answer.text}`,
          ).toBe(true);
          aimedCalls++;
        }
      }
    }
    expect(aimedCalls).toBeGreaterThanOrEqual(15);
    // Nothing of the victim changed either.
    expect(await victimView()).toEqual(before);
  });
});

/**
 * Whether an answer to a call aimed at the victim's ids is a refusal: an error of a refusing code,
 * the contract's refund message (HTTP 500 by docs/reference/contract.md#errors), or an async request that did not start.
 */
function isRefusal(method: DescMethod, answer: { error?: ConnectError; text: string }): boolean {
  const { error, text } = answer;
  if (!error)
    return method.name === "CreateOffSessionPaymentAsync" && JSON.parse(text).status === "ASYNC_STATUS_FAILED_TO_START";
  if (
    [Code.NotFound, Code.InvalidArgument, Code.FailedPrecondition, Code.PermissionDenied, Code.Unimplemented].includes(
      error.code,
    )
  )
    return true;
  return error.code === Code.Internal && error.rawMessage === "transaction does not belong to the merchant";
}

/** What the victim sees of its own data, to prove an intruder changed none of it. */
async function victimView() {
  const payments = server.client(PaymentService);
  const sandbox = server.client(SandboxService);
  const ids = victim.ids;
  const [charge, customer, refund, account, request, events] = await Promise.all([
    payments.getCharge({ charge: ids.charge }),
    payments.getCustomer({ customer: ids.customer }),
    payments.getRefund({ refundId: ids.refund }),
    sandbox.getBankAccount({ customerId: ids.customer }),
    payments.getAsyncPaymentRequest({ requestId: ids.request }),
    payments.listEvents({ pageSize: 100 }),
  ]);
  return [charge, customer, refund, account, request, events.events.length].map((m) =>
    JSON.stringify(m, (_k, v) => (typeof v === "bigint" ? String(v) : v)),
  );
}

describe("CustomerAppService: the customer's session cookie", () => {
  it("refuses every method but the two sign-in steps without a customer session; an API key or a dashboard session is none", async () => {
    const user = await signedInUser(server);
    const dashboardCookie = `furikomi_session=${user.cookies.get("furikomi_session")}`;
    const methods = unary(CustomerAppService).filter(
      (m) => m.name !== "SendSignInCode" && m.name !== "VerifySignInCode",
    );
    expect(methods.length).toBe(8);
    const attempts: Array<Record<string, string>> = [
      {},
      { authorization: `Bearer ${server.merchant.api_key}` },
      { cookie: "furikomi_app_session=forged", "x-csrf-token": "forged" },
      { cookie: dashboardCookie, "x-csrf-token": user.cookies.get("furikomi_csrf") ?? "" },
    ];
    for (const headers of attempts) {
      const client = callAs(CustomerAppService, headers);
      for (const method of methods) {
        const { message } = requestAimedAtVictim(method);
        const { error, text } = await answerOf(
          client[method.localName](create(method.input, message as never)),
          method,
        );
        expect(error?.code, `${method.name} ${JSON.stringify(headers)}`).toBe(Code.Unauthenticated);
        expect(leaked(text, message)).toEqual([]);
      }
    }
  });
});

describe("DashboardService: the session cookie", () => {
  it("refuses every method but the sign-in steps without a session, and an API key is no session", async () => {
    // The sign-in steps need no session: CompleteSignIn is refused for want of a valid sign-in
    // token (dashboard-totp.test.ts), an invitation's for want of its link (dashboard-team.test.ts).
    const methods = unary(DashboardService).filter((m) => accessOf(m).kind !== "sign_in");
    const attempts: Array<Record<string, string>> = [
      {},
      { authorization: `Bearer ${server.merchant.api_key}` },
      { cookie: "furikomi_session=forged", "x-csrf-token": "forged" },
    ];
    for (const headers of attempts) {
      const client = callAs(DashboardService, headers);
      for (const method of methods) {
        const { message } = requestAimedAtVictim(method);
        const { error, text } = await answerOf(
          client[method.localName](create(method.input, message as never)),
          method,
        );
        expect(error?.code, `${method.name} ${JSON.stringify(headers)}`).toBe(Code.Unauthenticated);
        expect(leaked(text, message)).toEqual([]);
      }
    }
  });

  it("refuses a signed-in user without the CSRF header", async () => {
    const user = await signedInUser(server);
    user.sendCsrf = false;
    const { error } = await answerOf(user.client.getSession({}), DashboardService.method.getSession);
    expect(error?.code).toBe(Code.Unauthenticated);
  });

  it("refuses another merchant's user aimed at this merchant's ids, and leaks nothing", async () => {
    const intruder = await server.newMerchant("Dashboard Intruder");
    const user = await signedInUser(server, { merchantId: intruder.merchant_id });
    const before = await victimView();
    const client = user.client as unknown as Record<string, (req: unknown) => Promise<unknown>>;
    let aimedCalls = 0;
    // StartSignUp answers every address alike (a code to whoever asks; no existence oracle).
    const skipped = ["SignOut", "SignIn", "StartSignUp"];
    for (const method of unary(DashboardService).filter((m) => !skipped.includes(m.name))) {
      const { message, aimed } = requestAimedAtVictim(method);
      const answer = await answerOf(client[method.localName](create(method.input, message as never)), method);
      const where = `DashboardService.${method.name} ${JSON.stringify(message)}`;
      expect(leaked(answer.text, message), where).toEqual([]);
      if (
        aimed &&
        ![
          "SearchCustomers",
          "ListSandboxMailbox",
          "ListCharges",
          "ListWebhookEvents",
          "ListAuditLog",
          // A filter by another merchant's customer or plan answers an empty page (checked for leaks above).
          "ListBillingSubscriptions",
        ].includes(method.name)
      ) {
        expect(
          isRefusal(method, answer),
          `${where}: ${answer.error?.code} ${answer.error?.rawMessage ?? answer.text}`,
        ).toBe(true);
        aimedCalls++;
      }
    }
    expect(aimedCalls).toBeGreaterThanOrEqual(8);
    expect(await victimView()).toEqual(before);
  });
});

describe("HostedPageService: the payment-link token", () => {
  // Valid other fields, so that the token is what a call is refused for.
  const validFields: Record<string, Record<string, unknown>> = {
    SubmitKyc: {
      name: "山田 太郎",
      katakanaLastName: "ヤマダ",
      katakanaFirstName: "タロウ",
      birthDate: "1990-04-01",
      address: "東京都千代田区",
    },
    VerifyTwoFactorCode: { code: "123456" },
    LinkBankAccount: { bankCode: "0001", branchCode: "001", accountNumber: "1234567", accountHolder: "ﾔﾏﾀﾞ ﾀﾛｳ" },
    SearchBranches: { bankCode: "0001" },
  };

  it("refuses every method without a token or with a forged one", async () => {
    const client = callAs(HostedPageService, {});
    for (const method of unary(HostedPageService)) {
      for (const token of ["", "forged-token", victim.ids.token.slice(0, -2) + "xx"]) {
        const { message } = requestAimedAtVictim(method);
        const { error, text } = await answerOf(
          client[method.localName](create(method.input, { ...message, ...validFields[method.name], token } as never)),
          method,
        );
        const where = `${method.name} ${JSON.stringify(token)}: ${text}`;
        // InitiatePayment and ApprovePayment answer an unknown link in their result (the page shows it).
        if (token === "")
          expect([error?.code, error?.rawMessage], where).toEqual([Code.InvalidArgument, "token: value is required"]);
        else if (["InitiatePayment", "ApprovePayment"].includes(method.name))
          expect(JSON.parse(text).result?.error, where).toEqual({
            errorCode: "PAYMENT_ERROR_CODE_NOT_FOUND",
            errorMessage: "payment link not found",
          });
        else expect([error?.code, error?.rawMessage], where).toEqual([Code.NotFound, "payment link not found"]);
        expect(leaked(text, { token })).toEqual([]);
      }
    }
  });

  it("does not take an API key instead of the token", async () => {
    const client = callAs(HostedPageService, { authorization: `Bearer ${server.merchant.api_key}` });
    const { error } = await answerOf(
      client.initiatePayment(create(HostedPageService.method.initiatePayment.input, {})),
      HostedPageService.method.initiatePayment,
    );
    expect([error?.code, error?.rawMessage]).toEqual([Code.InvalidArgument, "token: value is required"]);
  });
});
