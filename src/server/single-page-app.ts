import { existsSync, readFileSync } from "node:fs";
import type { Mode } from "../config.js";
import type { RequestListener } from "./listener.js";
import { asset, send, type Asset } from "./pages.js";
import { packageRoot } from "./package-root.js";

type NodeRequest = Parameters<RequestListener>[0];
type NodeResponse = Parameters<RequestListener>[1];

/** Everything but the Content-Security-Policy, which each app states for itself. */
const baseSecurityHeaders: Readonly<Record<string, string>> = Object.freeze({
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "cross-origin-opener-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
});

export interface SinglePageApp {
  /** What the not-built page calls it ("the dashboard"). */
  name: string;
  /** Where it is served: `/dashboard`, `/app`. */
  mount: string;
  /** Its folder under build/ (scripts/build.mjs writes it at npm install, and at npm start when stale). */
  buildFolder: string;
  /** Where its files are served under the mount: `assets/` or the mount itself (""). */
  filePrefix: string;
  /** File name → content type: the files beside index.html. */
  files: Readonly<Record<string, string>>;
  contentSecurityPolicy: string;
  mode: Mode;
}

/**
 * A page built by scripts/build.mjs: `GET <mount>/` answers index.html (no-store; routes live in
 * the URL's hash), `GET <mount>/<prefix><file>` its files (immutable when asked for by the
 * version the page names). Read once, at startup; when it was never built the page says how to
 * build it. The handler answers true when it answered.
 */
export function createSinglePageApp(app: SinglePageApp): (req: NodeRequest, res: NodeResponse) => Promise<boolean> {
  const directory = new URL(`build/${app.buildFolder}/`, packageRoot(import.meta.url));
  const headers = { ...baseSecurityHeaders, "content-security-policy": app.contentSecurityPolicy };
  const filesAt = `${app.mount}/${app.filePrefix}`;
  const built = ["index.html", ...Object.keys(app.files)].every((name) => existsSync(new URL(name, directory)));
  const files = new Map<string, Asset>();
  let page: Asset | undefined;
  if (built) {
    for (const [name, contentType] of Object.entries(app.files))
      files.set(name, asset(readFileSync(new URL(name, directory)), contentType));
    const html = readFileSync(new URL("index.html", directory), "utf8")
      .replaceAll("{{mode}}", app.mode)
      .replace(
        /\{\{asset:([a-z0-9.-]+)\}\}/g,
        (_, name: string) => `${filesAt}${name}?v=${files.get(name)?.version ?? ""}`,
      );
    page = asset(Buffer.from(html), "text/html; charset=utf-8");
  }
  const notBuilt = `<!doctype html><title>furikomi</title><p>${app.name} is not built: run <code>npm run build:web</code>.</p>`;

  return async (req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    const [path, query = ""] = (req.url ?? "/").split("?", 2);
    if (path === app.mount) {
      res.writeHead(308, { location: `${app.mount}/` });
      res.end();
      return true;
    }
    const found = path.startsWith(filesAt) ? files.get(path.slice(filesAt.length)) : undefined;
    if (found) {
      const versioned = new URLSearchParams(query).get("v") === found.version;
      send(req, res, found, versioned ? "public, max-age=31536000, immutable" : "no-cache", headers);
      return true;
    }
    if (path !== `${app.mount}/`) return false;
    if (page) send(req, res, page, "no-store", headers);
    else {
      res.writeHead(503, { "content-type": "text/html; charset=utf-8" });
      res.end(notBuilt);
    }
    return true;
  };
}
