import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import type { Mode } from "../config.js";
import type { RequestListener } from "./listener.js";
import { packageRoot } from "./package-root.js";

type NodeRequest = Parameters<RequestListener>[0];
type NodeResponse = Parameters<RequestListener>[1];

export interface Asset {
  readonly body: Buffer;
  readonly contentType: string;
  readonly etag: string;
  /** The content hash the page links it with (`?v=`), so a versioned URL can be cached for good. */
  readonly version: string;
}

/** Where scripts/build.mjs puts the page's bundle (at npm install, and at npm start when stale). */
const payDirectory = new URL("build/pay/", packageRoot(import.meta.url));
const notBuilt =
  "<!doctype html><title>furikomi</title><p>The payment page is not built: run <code>npm run build:web</code>.</p>";
const assetTypes: Readonly<Record<string, string>> = Object.freeze({
  "pay.css": "text/css; charset=utf-8",
  "pay.js": "text/javascript; charset=utf-8",
});

/**
 * The page talks only to this server (its RPCs) and shows the merchant's logo from https; no
 * framing, no referrer (the link's token is in the URL), no inline script or style.
 */
const securityHeaders: Readonly<Record<string, string>> = Object.freeze({
  "content-security-policy":
    "default-src 'self'; img-src 'self' https: data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "cross-origin-opener-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
});

/** A file as served: its bytes, type, ETag, and the content hash its links are versioned with. */
export function asset(body: Buffer, contentType: string): Asset {
  const hash = createHash("sha256").update(body).digest("base64url");
  return { body, contentType, etag: `"${hash.slice(0, 27)}"`, version: hash.slice(0, 12) };
}

/**
 * The hosted payment page: `GET /pay/<token>` answers the page (one HTML file for every token;
 * the page asks InitiatePayment what the token is), `GET /pay/assets/<file>` its CSS and
 * script. Files are read once, at startup. Returns true when it answered the request.
 */
export function createPages(options: { mode: Mode }): (req: NodeRequest, res: NodeResponse) => Promise<boolean> {
  const assets = new Map<string, Asset>();
  const built = existsSync(new URL("index.html", payDirectory));
  for (const [name, contentType] of Object.entries(assetTypes)) {
    if (built) assets.set(name, asset(readFileSync(new URL(name, payDirectory)), contentType));
  }
  const html = (built ? readFileSync(new URL("index.html", payDirectory), "utf8") : notBuilt)
    .replace("{{mode}}", options.mode)
    .replace(/\{\{asset:([a-z.]+)\}\}/g, (_, name: string) => `./assets/${name}?v=${assets.get(name)?.version ?? ""}`);
  const page = asset(Buffer.from(html), "text/html; charset=utf-8");

  return async (req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    const [path, query = ""] = (req.url ?? "/").split("?", 2);
    const assetMatch = /^\/pay\/assets\/([a-z.]+)$/.exec(path);
    if (assetMatch) {
      const found = assets.get(assetMatch[1]);
      if (!found) return false;
      const versioned = new URLSearchParams(query).get("v") === found.version;
      send(req, res, found, versioned ? "public, max-age=31536000, immutable" : "no-cache");
      return true;
    }
    if (/^\/pay\/[^/]+$/.test(path)) {
      // Per link and per moment (a reload shows the outcome): never from a cache.
      send(req, res, page, "no-store");
      return true;
    }
    return false;
  };
}

/** Answers a file (or 304 for a matching ETag) with the given security headers (by default the payment page's). */
export function send(
  req: NodeRequest,
  res: NodeResponse,
  file: Asset,
  cacheControl: string,
  pageHeaders: Readonly<Record<string, string>> = securityHeaders,
): void {
  const headers = { ...pageHeaders, "content-type": file.contentType, "cache-control": cacheControl, etag: file.etag };
  if (req.headers["if-none-match"] === file.etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, { ...headers, "content-length": String(file.body.length) });
  if (req.method === "HEAD") res.end();
  else res.end(file.body);
}
