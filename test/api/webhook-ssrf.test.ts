import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import type { LookupAddress } from "node:dns";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { webhookUrlRefusal } from "../../src/domain/webhook-url.js";
import { createMerchant } from "../../src/flows/merchants.js";
import { createWebhookTransport } from "../../src/ports/webhook-transport.js";
import { freshEmail } from "../helpers/on-session.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

/** Server-side request forgery: webhook URLs that would make the server call into its own network. */
const ssrfUrls = [
  // loopback, spelled every way WHATWG URL parsing accepts
  "https://127.0.0.1/hook",
  "https://127.0.0.1./hook",
  "https://127.1/hook",
  "https://127.000.000.001/hook",
  "https://2130706433/hook",
  "https://0x7f000001/hook",
  "https://0x7f.0.0.1/hook",
  "https://0x7f.1/hook",
  "https://017700000001/hook",
  "https://0177.0.0.1/hook",
  "https://１２７.０.０.１/hook",
  "https://①②⑦.0.0.1/hook",
  "https://127。0。0。1/hook",
  "https://127.255.255.254/hook",
  "https://[::1]/hook",
  "https://[0:0:0:0:0:0:0:1]/hook",
  "https://[::ffff:127.0.0.1]/hook",
  "https://[::ffff:7f00:1]/hook",
  "https://[::ffff:0:127.0.0.1]/hook",
  "https://[::127.0.0.1]/hook",
  "https://[64:ff9b::7f00:1]/hook",
  "https://[2002:7f00:1::1]/hook",
  "https://localhost/hook",
  "https://LocalHost./hook",
  "https://api.localhost/hook",
  // this network, unspecified
  "https://0/hook",
  "https://0.0.0.0/hook",
  "https://[::]/hook",
  // private ranges
  "https://10.0.0.5/hook",
  "https://10.1/hook",
  "https://167772161/hook",
  "https://172.16.0.1/hook",
  "https://172.31.255.255/hook",
  "https://192.168.0.10/hook",
  "https://0300.0250.0.1/hook",
  "https://0xc0a80001/hook",
  "https://3232235521/hook",
  "https://[::ffff:10.0.0.1]/hook",
  "https://[::ffff:a00:1]/hook",
  "https://[fc00::1]/hook",
  "https://[fd12:3456::1]/hook",
  "https://100.64.1.1/hook",
  // link-local and cloud metadata
  "https://169.254.1.1/hook",
  "https://169.254.169.254/latest/meta-data/",
  "https://0xa9fea9fe/latest/meta-data/",
  "https://2852039166/latest/meta-data/",
  "https://[::ffff:169.254.169.254]/latest/meta-data/",
  "https://169.254.170.2/v2/credentials",
  "https://100.100.100.200/latest/meta-data/",
  "https://[fd00:ec2::254]/latest/meta-data/",
  "https://[fe80::1]/hook",
  "https://metadata.google.internal/computeMetadata/v1/",
  // multicast, reserved, benchmarking, documentation
  "https://224.0.0.1/hook",
  "https://[ff02::1]/hook",
  "https://240.0.0.1/hook",
  "https://255.255.255.255/hook",
  "https://198.18.0.1/hook",
  "https://192.0.2.10/hook",
  "https://[2001:db8::1]/hook",
  // internal names
  "https://printer.local/hook",
  "https://router.home.arpa/hook",
  "https://db.lan/hook",
  "https://svc.localdomain/hook",
  "https://kubernetes/hook",
  "https://intranet/hook",
  // not https, or smuggling credentials, or not http at all
  "http://shop.example.com/hook",
  "https://user:pass@shop.example.com/hook",
  "https://shop.example.com:443@127.0.0.1/hook",
  "file:///etc/passwd",
  "gopher://127.0.0.1:6379/_INFO",
  "ftp://shop.example.com/hook",
  "https://[fe80::1%25eth0]/hook",
];

describe("webhook URLs in production", () => {
  it(`refuses ${ssrfUrls.length} forms of internal addresses`, () => {
    expect(ssrfUrls.length).toBeGreaterThanOrEqual(40);
    const accepted = ssrfUrls.filter((url) => webhookUrlRefusal(url, true) === undefined);
    expect(accepted).toEqual([]);
  });

  it("accepts public https URLs", () => {
    for (const url of [
      "https://shop.example.com/hooks",
      "https://8.8.8.8:8443/hook",
      "https://[2606:4700:4700::1111]/hook",
      "https://shop.example.com#@127.0.0.1/",
    ]) {
      expect(webhookUrlRefusal(url, true), url).toBeUndefined();
    }
  });
});

describe("registration in a production server", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { MODE: "production", PUBLIC_BASE_URL: "https://pay.example.jp" } });
  });
  afterAll(async () => server?.stop());

  it("refuses every form when a merchant is created with it", async () => {
    const registered: string[] = [];
    for (const url of ssrfUrls) {
      await createMerchant(server.ctx, { name: "SSRF", webhookUrl: url }).then(
        () => registered.push(url),
        () => undefined,
      );
    }
    expect(registered).toEqual([]);
  });

  it("refuses http redirect URLs for on-session payments in production, naming the field", async () => {
    const client = server.client(PaymentService);
    for (const [redirect, field] of [
      [
        { successUrl: "http://shop.example.jp/thanks", failureUrl: "https://shop.example.jp/sorry" },
        "redirect.success_url",
      ],
      [
        { successUrl: "https://shop.example.jp/thanks", failureUrl: "http://shop.example.jp/sorry" },
        "redirect.failure_url",
      ],
    ] as const) {
      const error = await client
        .createOnSessionPayment({ buyer: { email: freshEmail() }, charge: { price: 100, description: "d" }, redirect })
        .then(
          () => undefined,
          (e) => ConnectError.from(e),
        );
      expect(error?.code).toBe(Code.InvalidArgument);
      expect(error?.rawMessage).toBe(`${field}: must be an https URL in production`);
      expect(error?.findDetails(ErrorInfoSchema)[0].reason).toBe("ON_SESSION_PAYMENT_ERROR_CODE_VALIDATION_FAILED");
    }
    const ok = await client.createOnSessionPayment({
      buyer: { email: freshEmail() },
      charge: { price: 100, description: "d" },
      redirect: { successUrl: "https://shop.example.jp/thanks", failureUrl: "https://shop.example.jp/sorry" },
    });
    expect(ok.paymentLink?.url).toMatch(/^https:\/\/pay\.example\.jp\/pay\//);
  });

  it("refuses relative and non-http redirect URLs in any mode", async () => {
    const client = server.client(PaymentService);
    for (const successUrl of ["/thanks", "javascript:alert(1)", "shop.example.jp/thanks", "ftp://shop.example.jp/"]) {
      const error = await client
        .createOnSessionPayment({
          buyer: { email: freshEmail() },
          charge: { price: 100, description: "d" },
          redirect: { successUrl, failureUrl: "https://shop.example.jp/sorry" },
        })
        .then(
          () => undefined,
          (e) => ConnectError.from(e),
        );
      expect(error?.code, successUrl).toBe(Code.InvalidArgument);
      expect(error?.rawMessage).toMatch(/^redirect\.success_url: /);
    }
  });
});

describe("delivery: names that resolve to internal addresses, and redirects", () => {
  /** A resolver answering fixed addresses, as a hostile DNS server would. */
  const hostileDns: Record<string, string[]> = {
    "loopback.attacker.example": ["127.0.0.1"],
    "private.attacker.example": ["10.0.0.7"],
    "metadata.attacker.example": ["169.254.169.254"],
    "v6-loopback.attacker.example": ["::1"],
    "mapped.attacker.example": ["::ffff:192.168.1.1"],
    "ula.attacker.example": ["fd00::5"],
    "mixed.attacker.example": ["93.184.216.34", "127.0.0.1"],
  };
  const resolver = ((hostname: string, _options: unknown, callback: (e: Error | null, a: LookupAddress[]) => void) => {
    const addresses = hostileDns[hostname] ?? [];
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })),
    );
  }) as never;

  it("refuses to connect when any address a name resolves to is internal", async () => {
    const transport = createWebhookTransport({ timeoutMs: 2_000, publicAddressesOnly: true, resolver });
    try {
      for (const host of Object.keys(hostileDns)) {
        const answer = await transport.post(`https://${host}/hook`, "{}", {});
        expect(answer.httpStatus, host).toBe(0);
        expect(answer.error, host).toMatch(new RegExp(`^address refused: ${host.replace(/\./g, "\\.")} resolves to `));
      }
    } finally {
      transport.close();
    }
  });

  let first: Server;
  let second: Server;
  let secondHits = 0;
  afterAll(() => {
    first?.close();
    second?.close();
  });

  it("never follows a redirect: a 3xx is the answer, and its target is not called", async () => {
    second = createServer((_req, res) => {
      secondHits++;
      res.end("ok");
    });
    await new Promise<void>((resolve) => second.listen(0, "127.0.0.1", resolve));
    const target = `http://127.0.0.1:${(second.address() as { port: number }).port}/internal`;
    first = createServer((_req, res) => {
      res.writeHead(307, { location: target });
      res.end();
    });
    await new Promise<void>((resolve) => first.listen(0, "127.0.0.1", resolve));
    // Sandbox transport (loopback allowed) so the redirecting endpoint can be reached at all.
    const transport = createWebhookTransport({ timeoutMs: 2_000, publicAddressesOnly: false });
    try {
      for (const status of [301, 302, 303, 307, 308]) {
        first.removeAllListeners("request");
        first.on("request", (_req, res) => {
          res.writeHead(status, { location: target });
          res.end();
        });
        const answer = await transport.post(
          `http://127.0.0.1:${(first.address() as { port: number }).port}/hook`,
          "{}",
          {},
        );
        expect(answer.httpStatus).toBe(status);
      }
    } finally {
      transport.close();
    }
    expect(secondHits).toBe(0);
  });
});
