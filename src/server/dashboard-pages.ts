import { existsSync, readFileSync } from "node:fs";
import type { Mode } from "../config.js";
import type { RequestListener } from "./listener.js";
import { asset, send, type Asset } from "./pages.js";
import { packageRoot } from "./package-root.js";

type NodeRequest = Parameters<RequestListener>[0];
type NodeResponse = Parameters<RequestListener>[1];

/** Where scripts/build.mjs puts the bundle (at npm install, and at npm start when stale). */
const buildDirectory = new URL("build/dashboard/", packageRoot(import.meta.url));
const assetTypes: Readonly<Record<string, string>> = Object.freeze({
  "app.js": "text/javascript; charset=utf-8",
  "app.css": "text/css; charset=utf-8",
});

/**
 * The dashboard loads nothing from elsewhere: its script, style and RPCs come from this server;
 * the TOTP QR code is a data: image and the result CSV a blob: download.
 */
const securityHeaders: Readonly<Record<string, string>> = Object.freeze({
  "content-security-policy":
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "cross-origin-opener-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
});

const notBuilt =
  "<!doctype html><title>furikomi</title><p>The dashboard is not built: run <code>npm run build:web</code>.</p>";

/**
 * The merchant dashboard: `GET /dashboard/` answers the page (one HTML file; routes live in the
 * URL's hash), `GET /dashboard/assets/<file>` its bundle and style. Read once, at startup; when
 * the bundle was never built the page says how to build it. Returns true when it answered.
 */
export function createDashboardPages(options: {
  mode: Mode;
}): (req: NodeRequest, res: NodeResponse) => Promise<boolean> {
  const built = ["index.html", ...Object.keys(assetTypes)].every((name) => existsSync(new URL(name, buildDirectory)));
  const assets = new Map<string, Asset>();
  let page: Asset | undefined;
  if (built) {
    for (const [name, contentType] of Object.entries(assetTypes))
      assets.set(name, asset(readFileSync(new URL(name, buildDirectory)), contentType));
    const html = readFileSync(new URL("index.html", buildDirectory), "utf8")
      .replace("{{mode}}", options.mode)
      .replace(
        /\{\{asset:([a-z.]+)\}\}/g,
        (_, name: string) => `/dashboard/assets/${name}?v=${assets.get(name)?.version ?? ""}`,
      );
    page = asset(Buffer.from(html), "text/html; charset=utf-8");
  }

  return async (req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    const [path, query = ""] = (req.url ?? "/").split("?", 2);
    if (path === "/dashboard") {
      res.writeHead(308, { location: "/dashboard/" });
      res.end();
      return true;
    }
    const assetMatch = /^\/dashboard\/assets\/([a-z.]+)$/.exec(path);
    if (assetMatch) {
      const found = assets.get(assetMatch[1]);
      if (!found) return false;
      const versioned = new URLSearchParams(query).get("v") === found.version;
      send(req, res, found, versioned ? "public, max-age=31536000, immutable" : "no-cache", securityHeaders);
      return true;
    }
    if (path !== "/dashboard/") return false;
    if (page) send(req, res, page, "no-store", securityHeaders);
    else {
      res.writeHead(503, { "content-type": "text/html; charset=utf-8" });
      res.end(notBuilt);
    }
    return true;
  };
}
