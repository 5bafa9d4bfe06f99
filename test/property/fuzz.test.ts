import http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasOption, getOption, toBinary, toJson, type DescMethod, type DescService } from "@bufbuild/protobuf";
import { http } from "../../gen/google/api/annotations_pb.js";
import { DashboardService } from "../../gen/payments/v1/dashboard_service_pb.js";
import { CustomerAppService } from "../../gen/payments/v1/customer_app_service_pb.js";
import { HostedPageService } from "../../gen/payments/v1/hosted_page_service_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { SubscriptionService } from "../../gen/payments/v1/subscription_service_pb.js";
import type { CreatedMerchant } from "../../src/flows/merchants.js";
import { createDashboardUser } from "../../src/flows/dashboard-auth.js";
import { bundleServer } from "../helpers/bundled-server.js";
import { dashboardPassword } from "../helpers/dashboard.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { spawnServer, type ServerProcess } from "../helpers/process-server.js";
import { provisionDatabase } from "../helpers/provision.js";
import { freshDatabaseUrl } from "../helpers/test-server.js";
import { grpcFrame, malformedBinary, malformedJson } from "./fuzz/malformed.js";
import { pick, randomMessage, type Random } from "./fuzz/message-generator.js";
import { grpcCall, grpcWebCall, httpCall, type Answer } from "./fuzz/protocols.js";
import { unexplained } from "./fuzz/verdict.js";

/**
 * Every RPC of every service over every protocol — Connect JSON, Connect binary, gRPC, gRPC-Web, and the
 * plain HTTP path where the .proto declares one — with messages generated from the descriptors,
 * valid-shaped and malformed: only documented errors, no unexplained internal error, no crash,
 * and the server still answers afterwards.
 */
const caseCount = Number(process.env.FUZZ_CASES ?? 5_000);
const concurrency = 12;
// CustomerAppService without a customer session: its sign-in steps, and every other call refused.
const services: DescService[] = [
  PaymentService,
  SubscriptionService,
  HostedPageService,
  SandboxService,
  DashboardService,
  CustomerAppService,
];
const methods = services.flatMap((service) => service.methods);
const protocols = ["connect-json", "connect-binary", "grpc", "grpc-web", "http"] as const;
type Protocol = (typeof protocols)[number];

function mulberry32(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const dashboardEmail = "fuzz-ops@example.jp";

/** Signs the dashboard user in: the cookies and CSRF header its calls carry. */
async function dashboardSession(url: string): Promise<Record<string, string>> {
  const res = await fetch(`${url}/payments.v1.DashboardService/SignIn`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: dashboardEmail, password: dashboardPassword }),
  });
  const cookies = res.headers.getSetCookie().map((cookie) => cookie.split(";")[0]);
  const csrf = cookies.find((c) => c.startsWith("furikomi_csrf="))?.split("=")[1] ?? "";
  return { cookie: cookies.join("; "), "x-csrf-token": csrf };
}

async function provision(databaseUrl: string) {
  return provisionDatabase(databaseUrl, "Fuzz Shop", async (setup) => {
    const { customerId, contractId } = await seedActiveCustomer(setup);
    await createDashboardUser(setup.ctx, {
      merchantId: setup.merchant.merchant_id,
      email: dashboardEmail,
      password: dashboardPassword,
    });
    return { ids: [customerId, contractId, setup.merchant.merchant_id] };
  });
}

/** Lone surrogates cannot go into a URL; a client would send U+FFFD. */
function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");
}

/** The plain HTTP request for a method's google.api.http rule, path parameters filled from the message. */
function plainRequest(method: DescMethod, json: Record<string, unknown>, body: string | undefined) {
  const rule = getOption(method, http);
  const verb = rule.pattern.case as "get" | "post";
  let path = String(rule.pattern.value);
  const rest = { ...json };
  path = path.replace(/\{([a-z_]+)\}/g, (_m, name: string) => {
    const field = method.input.fields.find((f) => f.name === name)!;
    const value = rest[field.jsonName];
    delete rest[field.jsonName];
    return encodeURIComponent(wellFormed(String(value ?? "x"))) || "x";
  });
  if (verb === "get") {
    const query = new URLSearchParams(
      Object.entries(rest)
        .filter(([, v]) => typeof v !== "object")
        .map(([k, v]) => [k, wellFormed(String(v))]),
    );
    return { verb: "GET", path: `${path}${query.size > 0 ? `?${query}` : ""}`, body: undefined };
  }
  return { verb: "POST", path, body: body ?? JSON.stringify(rest) };
}

describe("fuzzing every RPC over every protocol", () => {
  const fresh = freshDatabaseUrl("sqlite");
  let server: ServerProcess;
  let session: http2.ClientHttp2Session;
  let merchant: CreatedMerchant;
  let ids: string[] = [];
  let dashboard: Record<string, string> = {};
  const unexpectedLogLines: string[] = [];

  beforeAll(async () => {
    ({ merchant, ids } = await provision(fresh.url));
    server = await spawnServer(
      { DATABASE_URL: fresh.url, API_KEY_CACHE_MS: "600000" },
      { entry: await bundleServer() },
    );
    server.child.stdout!.on("data", (chunk) => {
      for (const line of String(chunk).split("\n"))
        if (line.includes('"unexpected error"') || line.includes("uncaught"))
          unexpectedLogLines.push(line.slice(0, 2000));
    });
    session = connectHttp2();
    dashboard = await dashboardSession(server.url);
    // Real objects to aim at: a charge and a payment link of this merchant.
    const headers = { authorization: `Bearer ${merchant.api_key}`, "content-type": "application/json" };
    const charge = await (
      await fetch(`${server.url}/v1/payments/off-session`, {
        method: "POST",
        headers,
        body: JSON.stringify({ customer_id: ids[0], charge: { price: 1000 } }),
      })
    ).json();
    const link = await (
      await fetch(`${server.url}/v1/payments/on-session`, {
        method: "POST",
        headers,
        body: JSON.stringify({
          buyer: { email: "fuzz@example.jp" },
          charge: { price: 500 },
          redirect: { success_url: "https://a.example/ok", failure_url: "https://a.example/ng" },
        }),
      })
    ).json();
    ids.push(charge.charge.chargeId, link.paymentLink.url, new URL(link.paymentLink.url).pathname.split("/").pop()!);
  });
  afterAll(async () => {
    session?.close();
    await server?.kill("SIGKILL");
    await fresh.cleanup();
  });

  function connectHttp2(): http2.ClientHttp2Session {
    const opened = http2.connect(server.url);
    // A connection the server closes (GOAWAY after a broken frame) is replaced for the next case.
    opened.on("error", () => {});
    return opened;
  }

  async function runCase(
    random: Random,
  ): Promise<{ protocol: Protocol; method: DescMethod; malformed: boolean; answer: Answer }> {
    const method = pick(random, methods);
    const available = protocols.filter((p) => p !== "http" || hasOption(method, http));
    const protocol = pick(random, available);
    const malformed = random() < 0.4;
    const message = randomMessage(random, method.input, ids);
    const json = toJson(method.input, message) as Record<string, unknown>;
    const binary = toBinary(method.input, message);
    // Dashboard calls carry the signed-in session (but SignOut, which would end it).
    const credentials =
      method.parent === DashboardService && method.name !== "SignOut"
        ? dashboard
        : { authorization: `Bearer ${merchant.api_key}` };
    const auth: Record<string, string> =
      random() < 0.9 ? credentials : random() < 0.5 ? {} : { authorization: "Bearer sk_test_forged" };
    const rpcPath = `/${method.parent.typeName}/${method.name}`;
    let answer: Answer;
    if (protocol === "connect-json") {
      const body = malformed ? malformedJson(random, json) : JSON.stringify(json);
      answer = await httpCall(server.url + rpcPath, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json", "connect-protocol-version": "1" },
        body,
      });
    } else if (protocol === "connect-binary") {
      const body = malformed ? malformedBinary(random, binary) : binary;
      answer = await httpCall(server.url + rpcPath, {
        method: "POST",
        headers: { ...auth, "content-type": "application/proto", "connect-protocol-version": "1" },
        body,
      });
    } else if (protocol === "grpc") {
      const payload = malformed ? malformedBinary(random, binary) : binary;
      const frame =
        malformed && random() < 0.3
          ? grpcFrame(payload, pick(random, [{ compressed: true }, { lie: payload.length + 7 }, { lie: 0x7fffffff }]))
          : grpcFrame(payload);
      if (session.closed || session.destroyed) session = connectHttp2();
      answer = await grpcCall(session, rpcPath, auth, frame);
    } else if (protocol === "grpc-web") {
      const payload = malformed ? malformedBinary(random, binary) : binary;
      answer = await grpcWebCall(server.url + rpcPath, auth, grpcFrame(payload));
    } else {
      const request = plainRequest(method, json, malformed ? malformedJson(random, json) : undefined);
      const contentType = malformed && random() < 0.2 ? "text/plain" : "application/json";
      answer = await httpCall(server.url + request.path, {
        method: request.verb,
        headers: { ...auth, "content-type": contentType },
        body: request.body,
      });
    }
    return { protocol, method, malformed, answer };
  }

  it(`answers ${caseCount} generated requests with documented errors only`, async () => {
    const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
    const random = mulberry32(seed);
    const problems: string[] = [];
    const tally = new Map<string, number>();
    let done = 0;
    const worker = async () => {
      while (done < caseCount) {
        done++;
        const { protocol, method, malformed, answer } = await runCase(random);
        const label = `${protocol} ${malformed ? "malformed" : "valid-shaped"}`;
        tally.set(label, (tally.get(label) ?? 0) + 1);
        tally.set(answer.code || "ok", (tally.get(answer.code || "ok") ?? 0) + 1);
        const why = unexplained(answer);
        if (why && problems.length < 50) problems.push(`${label} ${method.parent.name}.${method.name}: ${why}`);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    console.log(
      `fuzz: ${done} cases (seed ${seed}), methods ${methods.length}: ${JSON.stringify(Object.fromEntries(tally))}`,
    );
    expect(problems).toEqual([]);
    expect(unexpectedLogLines).toEqual([]);
    // Still alive, still answering.
    expect(server.child.exitCode).toBeNull();
    const res = await fetch(`${server.url}/v1/customer/${ids[0]}`, {
      headers: { authorization: `Bearer ${merchant.api_key}` },
    });
    expect(res.status).toBe(200);
  }, 600_000);

  // What the fuzzing found, pinned.
  it("answers a body it cannot decode with invalid_argument on Connect, gRPC and gRPC-Web, not internal", async () => {
    const broken = Uint8Array.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]);
    const path = "/payments.v1.PaymentService/GetCharge";
    const auth = { authorization: `Bearer ${merchant.api_key}` };
    const connect = await httpCall(server.url + path, {
      method: "POST",
      headers: { ...auth, "content-type": "application/proto", "connect-protocol-version": "1" },
      body: broken,
    });
    expect(connect).toMatchObject({ httpStatus: 400, code: "invalid_argument" });
    expect(await grpcWebCall(server.url + path, auth, grpcFrame(broken))).toMatchObject({ code: "invalid_argument" });
    if (session.closed || session.destroyed) session = connectHttp2();
    expect(await grpcCall(session, path, auth, grpcFrame(broken))).toMatchObject({ code: "invalid_argument" });
    expect(await grpcCall(session, path, auth, grpcFrame(Uint8Array.from([]), { compressed: true }))).toMatchObject({
      code: "invalid_argument",
    });
  });

  it("refuses a simulated balance that would not encode, instead of failing to answer", async () => {
    const answer = await httpCall(`${server.url}/v1/sandbox/bank-accounts/${ids[0]}`, {
      method: "POST",
      headers: { authorization: `Bearer ${merchant.api_key}`, "content-type": "application/json" },
      body: JSON.stringify({ balance: "9223372036854775807" }),
    });
    expect(answer).toMatchObject({ httpStatus: 400, code: "invalid_argument" });
    expect(answer.message).toContain("balance");
  });
});
