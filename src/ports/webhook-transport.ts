import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { performance } from "node:perf_hooks";
import { forbiddenAddress } from "../domain/webhook-url.js";

/** What one delivery attempt came to: an HTTP status, or a network error (status 0). */
export interface WebhookAnswer {
  httpStatus: number;
  error: string;
  durationMs: number;
  /** The attempt was cut short by shutdown: it does not count. */
  aborted?: boolean;
}

export interface WebhookTransport {
  /** POSTs the body; never follows redirects, never throws. */
  post(url: string, body: string, headers: Record<string, string>, signal?: AbortSignal): Promise<WebhookAnswer>;
  close(): void;
}

/**
 * The HTTP client webhooks go out through. `publicAddressesOnly` (production) resolves the host,
 * refuses the connection unless every address it resolves to is public, and connects to the
 * address it checked (no second lookup an attacker's DNS could answer differently).
 */
export function createWebhookTransport(options: {
  timeoutMs: number;
  publicAddressesOnly: boolean;
  resolver?: typeof dnsLookup;
}): WebhookTransport {
  const publicOnlyLookup = publicOnly(options.resolver ?? dnsLookup);
  const agents = { "http:": new http.Agent({ keepAlive: true }), "https:": new https.Agent({ keepAlive: true }) };

  function attempt(
    url: URL,
    body: string,
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
    started: number,
    fresh: boolean,
  ) {
    return new Promise<WebhookAnswer & { retryFresh?: boolean }>((resolve) => {
      const request = (url.protocol === "https:" ? https : http).request(url, {
        method: "POST",
        agent: fresh ? false : agents[url.protocol as "http:" | "https:"],
        lookup: options.publicAddressesOnly ? publicOnlyLookup : undefined,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "user-agent": "furikomi-webhooks/1",
          ...headers,
        },
      });
      let httpStatus = 0;
      const elapsed = () => Math.round(performance.now() - started);
      const finish = (answer: Omit<WebhookAnswer, "durationMs"> & { retryFresh?: boolean }) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        resolve({ ...answer, durationMs: elapsed() });
      };
      const timer = setTimeout(
        () => {
          // An answer whose body does not end in time still counts by its status.
          if (httpStatus) finish({ httpStatus, error: "" });
          else finish({ httpStatus: 0, error: `timeout after ${options.timeoutMs} ms` });
          request.destroy();
        },
        Math.max(0, options.timeoutMs - elapsed()),
      );
      const onAbort = () => {
        finish({ httpStatus: 0, error: "aborted by shutdown", aborted: true });
        request.destroy();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      request.on("response", (response) => {
        httpStatus = response.statusCode ?? 0;
        response.resume();
        response.on("end", () => finish({ httpStatus, error: "" }));
        response.on("error", () => finish({ httpStatus, error: "" }));
      });
      request.on("error", (error: NodeJS.ErrnoException) => {
        if (httpStatus) return finish({ httpStatus, error: "" });
        // A kept-alive socket the receiver closed meanwhile: try once more on a new connection.
        const stale = request.reusedSocket && (error.code === "ECONNRESET" || error.code === "EPIPE");
        finish({ httpStatus: 0, error: describeNetworkError(error), retryFresh: stale && !fresh });
      });
      request.end(body);
    });
  }

  return {
    async post(rawUrl, body, headers, signal) {
      const started = performance.now();
      const url = new URL(rawUrl);
      if (options.publicAddressesOnly) {
        // IP literals are not looked up: judge them here.
        const reason = isIpLiteral(url.hostname) ? forbiddenAddress(url.hostname) : undefined;
        if (reason) return { httpStatus: 0, error: `address refused: ${url.hostname} is ${reason}`, durationMs: 0 };
      }
      const first = await attempt(url, body, headers, signal, started, false);
      if (!first.retryFresh) return first;
      const { retryFresh: _, ...second } = await attempt(url, body, headers, signal, started, true);
      return second;
    },
    close() {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  };
}

/** Resolves every address of the host and fails unless all are public; hands on the checked ones. */
const publicOnly =
  (resolver: typeof dnsLookup): LookupFunction =>
  (hostname, lookupOptions, callback) => {
    resolver(hostname, { ...lookupOptions, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 0);
      const refused = addresses.find((a) => forbiddenAddress(a.address));
      if (refused || addresses.length === 0) {
        const refusal = Object.assign(
          new Error(
            refused
              ? `address refused: ${hostname} resolves to ${refused.address}, ${forbiddenAddress(refused.address)}`
              : `${hostname} has no address`,
          ),
          { code: "EADDRREFUSED" },
        );
        return callback(refusal, "", 0);
      }
      if (lookupOptions.all) (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    });
  };

function isIpLiteral(hostname: string): boolean {
  return hostname.startsWith("[") || /^\d+\.\d+\.\d+\.\d+$/.test(hostname);
}

function describeNetworkError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case "ECONNREFUSED":
      return "connection refused";
    case "ECONNRESET":
      return "connection reset";
    case "EPIPE":
      return "connection closed while sending";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `DNS lookup failed (${error.code})`;
    case "EADDRREFUSED":
      return error.message;
    default:
      if (error.message === "socket hang up") return "connection closed without an answer";
      return error.code ? `${error.code}: ${error.message}` : error.message;
  }
}
