import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { connect as netConnect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tlsConnect } from "node:tls";
import { connect as http2Connect, constants } from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";
import { RetryInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { signedInUser } from "../helpers/dashboard.js";
import { api, startTestServer, type TestServer } from "../helpers/test-server.js";

async function refusalOf(call: Promise<unknown>): Promise<ConnectError> {
  try {
    await call;
  } catch (error) {
    return ConnectError.from(error);
  }
  throw new Error("the call was not refused");
}

describe("per-merchant rate limit", () => {
  let server: TestServer;
  beforeAll(async () => {
    // Three calls at once, then one every ten seconds: the fourth call in a row is refused.
    server = await startTestServer({ env: { RATE_LIMIT_PER_SECOND: "0.1", RATE_LIMIT_BURST: "3" } });
  });
  afterAll(async () => server?.stop());

  it("answers resource_exhausted with Retry-After on every protocol, per merchant", async () => {
    const other = await server.newMerchant("Neighbour");
    const client = server.client(PaymentService);
    for (let i = 0; i < 3; i++) await client.listCustomers({});

    const connectError = await refusalOf(client.listCustomers({}));
    expect(connectError.code).toBe(Code.ResourceExhausted);
    expect(connectError.metadata.get("retry-after")).toMatch(/^(10|9|8)$/);
    expect(Number(connectError.findDetails(RetryInfoSchema)[0].retryDelay?.seconds)).toBe(
      Number(connectError.metadata.get("retry-after")),
    );

    const grpcError = await refusalOf(server.client(PaymentService, undefined, { grpc: true }).listCustomers({}));
    expect(grpcError.code).toBe(Code.ResourceExhausted);
    expect(grpcError.findDetails(RetryInfoSchema)).toHaveLength(1);

    const plain = await api(server, "/v1/customers");
    expect(plain.status).toBe(429);
    expect(plain.headers.get("retry-after")).toMatch(/^(10|9|8)$/);
    expect((await plain.json()).code).toBe("resource_exhausted");

    const rpc = await fetch(`${server.url}/payments.v1.PaymentService/ListCustomers`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${server.merchant.api_key}` },
      body: "{}",
    });
    expect(rpc.status).toBe(429);
    expect(rpc.headers.get("retry-after")).toMatch(/^(10|9|8)$/);

    // Another merchant has a bucket of its own.
    await expect(server.client(PaymentService, other.api_key).listCustomers({})).resolves.toMatchObject({
      customers: [],
    });
    // A wrong key is refused as unauthenticated before it could spend anyone's tokens.
    expect((await refusalOf(server.client(PaymentService, "sk_test_wrong").listCustomers({}))).code).toBe(
      Code.Unauthenticated,
    );
  });
});

describe("size limits", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.stop());

  it("refuses a request body over 4 MiB on the RPC paths and over 1 MiB on the plain HTTP paths", async () => {
    const huge = JSON.stringify({ email: "x".repeat(5 * 1024 * 1024) });
    const rpc = await fetch(`${server.url}/payments.v1.PaymentService/ListCustomers`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${server.merchant.api_key}` },
      body: huge,
    });
    expect(rpc.status).toBe(429);
    expect((await rpc.json()).code).toBe("resource_exhausted");

    const plain = await api(server, "/v1/payments/off-session/async", {
      method: "POST",
      body: JSON.stringify({ pad: "x".repeat(1_100_000) }),
      headers: { "content-type": "application/json" },
    });
    expect(plain.status).toBe(429);
    expect((await plain.json()).message).toMatch(/larger than 1048576 bytes/);
  });

  it("refuses metadata beyond 50 keys, 40-character keys or 500-character values", async () => {
    const charge = (metadata: Record<string, string>) => ({
      customer_id: "cus-x",
      charge: { price: 100, description: "d", metadata },
    });
    const tooMany = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"]));
    for (const metadata of [tooMany, { ["k".repeat(41)]: "v" }, { k: "v".repeat(501) }]) {
      const res = await api(server, "/v1/payments/off-session/async", { method: "POST", json: charge(metadata) });
      expect(res.status).toBe(400);
      expect((await res.json()).message).toMatch(/^charge\.metadata/);
    }
  });

  it("refuses a page size over 100", async () => {
    const res = await api(server, "/v1/customers?page_size=101");
    expect(res.status).toBe(400);
    expect((await res.json()).message).toMatch(/page_size/);
    expect((await api(server, "/v1/customers?page_size=100")).status).toBe(200);
  });

  it("refuses a CSV file over 2,000,000 bytes before reading it", async () => {
    const user = await signedInUser(server);
    const error = await refusalOf(
      user.client.uploadCsvBatch({ fileName: "big.csv", content: new Uint8Array(2_000_001).fill(0x41) }),
    );
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.rawMessage).toMatch(/^content: /);
  });
});

describe("slow clients", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: { HTTP_HEADERS_TIMEOUT_MS: "300", HTTP_REQUEST_TIMEOUT_MS: "600", HTTP_IDLE_TIMEOUT_MS: "400" },
    });
  });
  afterAll(async () => server?.stop());

  const rawExchange = (bytes: string) => exchange((ready) => netConnect(server.port, "127.0.0.1", ready), bytes);

  it("closes a connection that never says anything", async () => {
    expect(await rawExchange("")).toBe("");
  });

  it("closes a connection whose headers never finish (408)", async () => {
    expect(await rawExchange("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")).toMatch(/^HTTP\/1\.1 408/);
  });

  it("closes a connection whose body never finishes", async () => {
    const answer = await rawExchange(
      `POST /v1/payments/off-session/async HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it("closes an idle keep-alive connection after a request", async () => {
    expect(await rawExchange("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")).toMatch(/^HTTP\/1\.1 200/);
  });

  it("closes an HTTP/2 session whose request stalls, cancelling the request", async () => {
    const session = http2Connect(server.url);
    const stream = session.request({
      ":method": "POST",
      ":path": "/payments.v1.PaymentService/ListCustomers",
      "content-type": "application/grpc",
    });
    stream.on("error", () => {});
    const streamClosed = new Promise<number>((resolve) => stream.on("close", () => resolve(stream.rstCode)));
    const sessionClosed = new Promise<void>((resolve) => session.on("close", () => resolve()));
    // A gRPC message header announcing 10 bytes that never come.
    stream.write(Buffer.from([0, 0, 0, 0, 10]));
    expect(await streamClosed).toBe(constants.NGHTTP2_CANCEL);
    await sessionClosed;
    expect(session.destroyed).toBe(true);
  });
});

describe("slow HTTP/2 requests on a live session", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: { HTTP_HEADERS_TIMEOUT_MS: "300", HTTP_REQUEST_TIMEOUT_MS: "300", HTTP_IDLE_TIMEOUT_MS: "60000" },
    });
  });
  afterAll(async () => server?.stop());

  it("cancels a request whose body never ends, and keeps the session for the next one", async () => {
    const session = http2Connect(server.url);
    try {
      const stalled = session.request({
        ":method": "POST",
        ":path": "/payments.v1.PaymentService/ListCustomers",
        "content-type": "application/grpc",
      });
      stalled.on("error", () => {});
      const closed = new Promise<number>((resolve) => stalled.on("close", () => resolve(stalled.rstCode)));
      stalled.write(Buffer.from([0, 0, 0, 0, 10]));
      expect(await closed).toBe(constants.NGHTTP2_CANCEL);
      expect(session.destroyed).toBe(false);

      const next = session.request({ ":method": "GET", ":path": "/readyz" });
      const status = await new Promise<number>((resolve) =>
        next.on("response", (headers) => resolve(Number(headers[":status"]))),
      );
      next.resume();
      expect(status).toBe(200);
    } finally {
      session.close();
    }
  });
});

describe("slow clients over TLS", () => {
  let server: TestServer;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "furikomi-tls-limits-"));
    const [cert, key] = [join(dir, "cert.pem"), join(dir, "key.pem")];
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        key,
        "-out",
        cert,
        "-days",
        "1",
        "-subj",
        "/CN=localhost",
      ],
      { stdio: "ignore" },
    );
    server = await startTestServer({
      env: {
        TLS_CERT_FILE: cert,
        TLS_KEY_FILE: key,
        HTTP_HEADERS_TIMEOUT_MS: "300",
        HTTP_REQUEST_TIMEOUT_MS: "600",
        HTTP_IDLE_TIMEOUT_MS: "400",
      },
    });
  });
  afterAll(async () => server?.stop());

  const tlsExchange = (bytes: string) =>
    exchange(
      (ready) =>
        tlsConnect(
          { port: server.port, host: "127.0.0.1", rejectUnauthorized: false, ALPNProtocols: ["http/1.1"] },
          ready,
        ),
      bytes,
    );

  it("closes a connection whose headers never finish (408)", async () => {
    expect(await tlsExchange("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")).toMatch(/^HTTP\/1\.1 408/);
  });

  it("closes a connection whose body never finishes", async () => {
    const answer = await tlsExchange(
      `POST /v1/payments/off-session/async HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it("closes a connection that never finishes its handshake", async () => {
    const closed = await new Promise<boolean>((resolve) => {
      const socket = netConnect(server.port, "127.0.0.1");
      socket.on("close", () => resolve(true));
      socket.on("error", () => {});
    });
    expect(closed).toBe(true);
  });
});

/** Opens a connection, writes `bytes`, and resolves with what the server sent before it closed the connection. */
function exchange(open: (ready: () => void) => Socket, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = open(() => socket.write(bytes));
    let received = "";
    socket.on("data", (chunk) => (received += chunk.toString()));
    socket.on("close", () => resolve(received));
    socket.on("error", reject);
  });
}
