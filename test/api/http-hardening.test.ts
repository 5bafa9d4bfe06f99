import http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { Health, HealthCheckResponse_ServingStatus } from "../../gen/grpc/health/v1/health_pb.js";
import { api, startTestServer, type TestServer } from "../helpers/test-server.js";

let server: TestServer;
let behindHttps: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  behindHttps = await startTestServer({
    env: { PUBLIC_BASE_URL: "https://pay.example.jp", HTTP2_MAX_CONCURRENT_STREAMS: "7" },
  });
});
afterAll(async () => {
  await server?.stop();
  await behindHttps?.stop();
});

/** The SETTINGS the server sends on a new HTTP/2 connection. */
async function remoteSettings(url: string): Promise<http2.Settings> {
  const session = http2.connect(url);
  try {
    return await new Promise((resolve, reject) => {
      session.once("remoteSettings", resolve);
      session.once("error", reject);
    });
  } finally {
    session.close();
  }
}

describe("HTTP/2", () => {
  it("advertises at most 100 concurrent streams by default, HTTP2_MAX_CONCURRENT_STREAMS when set", async () => {
    expect((await remoteSettings(server.url)).maxConcurrentStreams).toBe(100);
    expect((await remoteSettings(behindHttps.url)).maxConcurrentStreams).toBe(7);
  });
});

describe("response headers", () => {
  const rpc = (target: TestServer) =>
    api(target, "/payments.v1.PaymentService/ListCustomers", { method: "POST", json: {} });

  it("API and RPC answers, successes and errors: Cache-Control no-store and nosniff", async () => {
    const answers = [
      await rpc(server),
      await api(server, "/v1/customers"),
      await api(server, "/v1/charge/trx-none"),
      await api(server, "/v1/charge/trx-none", { apiKey: "" }),
      await api(server, "/no/such/route"),
      await api(server, "/payments.v1.DashboardService/GetWebhookSettings", { method: "POST", json: {} }),
    ];
    expect(answers.map((res) => res.status)).toEqual([200, 200, 404, 401, 404, 401]);
    for (const res of answers) {
      expect(res.headers.get("cache-control"), res.url).toBe("no-store");
      expect(res.headers.get("x-content-type-options"), res.url).toBe("nosniff");
    }
  });

  it("pages keep their own caching", async () => {
    const asset = await fetch(`${server.url}/pay/assets/pay.css`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toBe("no-cache");
  });

  it("HSTS only behind an https PUBLIC_BASE_URL (or over TLS: tls.test.ts)", async () => {
    expect((await rpc(server)).headers.get("strict-transport-security")).toBeNull();
    for (const res of [await rpc(behindHttps), await fetch(`${behindHttps.url}/dashboard/`)]) {
      expect(res.headers.get("strict-transport-security")).toBe("max-age=31536000");
    }
  });
});

describe("x-request-id", () => {
  const idOf = async (given: string) =>
    (await api(server, "/v1/charge/trx-none", { headers: { "x-request-id": given } })).headers.get("x-request-id");

  it("is echoed when short and plain", async () => {
    expect(await idOf("req-123")).toBe("req-123");
    expect(await idOf("a".repeat(64))).toBe("a".repeat(64));
  });

  it("is replaced by a fresh one when long or not plain", async () => {
    for (const given of ["a".repeat(65), "<script>alert(1)</script>", "id with spaces", "id\u00e9"]) {
      const id = await idOf(given);
      expect(id, given).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});

describe("gRPC health", () => {
  const health = () => createClient(Health, createGrpcTransport({ baseUrl: server.url }));

  it("answers SERVING for the server and each service, NOT_FOUND for an unknown service", async () => {
    for (const service of ["", "payments.v1.PaymentService", "grpc.health.v1.Health"]) {
      expect((await health().check({ service })).status, service).toBe(HealthCheckResponse_ServingStatus.SERVING);
    }
    const error = await health()
      .check({ service: "no.such.Service" })
      .then(() => undefined, ConnectError.from);
    expect(error?.code).toBe(Code.NotFound);
  });

  it("lists every service it serves", async () => {
    const { statuses } = await health().list({});
    expect(Object.keys(statuses).sort()).toEqual([
      "grpc.health.v1.Health",
      "grpc.reflection.v1.ServerReflection",
      "grpc.reflection.v1alpha.ServerReflection",
      "payments.v1.CustomerAppService",
      "payments.v1.DashboardService",
      "payments.v1.HostedPageService",
      "payments.v1.PaymentService",
      "payments.v1.SandboxService",
      "payments.v1.SubscriptionService",
    ]);
    for (const status of Object.values(statuses)) expect(status.status).toBe(HealthCheckResponse_ServingStatus.SERVING);
  });
});
