import { afterAll, beforeAll, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "node:https";
import { connect } from "node:http2";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

let server: TestServer;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "furikomi-tls-"));
  const cert = join(dir, "cert.pem");
  const key = join(dir, "key.pem");
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
  server = await startTestServer({ env: { TLS_CERT_FILE: cert, TLS_KEY_FILE: key } });
});
afterAll(async () => server?.stop());

it("speaks HTTPS/1.1 when a certificate is configured", async () => {
  const status = await new Promise<number>((resolve, reject) => {
    request({ host: "127.0.0.1", port: server.port, path: "/healthz", rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .on("error", reject)
      .end();
  });
  expect(status).toBe(200);
});

it("speaks HTTP/2 over TLS (ALPN) on the same port", async () => {
  const session = connect(`https://127.0.0.1:${server.port}`, { rejectUnauthorized: false });
  const status = await new Promise<number>((resolve, reject) => {
    const stream = session.request({ ":path": "/healthz" });
    stream.on("response", (headers) => resolve(Number(headers[":status"])));
    stream.on("error", reject);
    stream.resume();
  });
  session.close();
  expect(status).toBe(200);
});

it("sends Strict-Transport-Security over TLS, on API answers and pages alike", async () => {
  for (const path of ["/healthz", "/v1/charge/trx-none", "/dashboard/"]) {
    const hsts = await new Promise<string | undefined>((resolve, reject) => {
      request({ host: "127.0.0.1", port: server.port, path, rejectUnauthorized: false }, (res) => {
        res.resume();
        resolve(res.headers["strict-transport-security"]);
      })
        .on("error", reject)
        .end();
    });
    expect(hsts, path).toBe("max-age=31536000");
  }
});
