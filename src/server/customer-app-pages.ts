import type { Mode } from "../config.js";
import { createSinglePageApp } from "./single-page-app.js";

/**
 * The customer app (docs/guide/customer-app.md) at `/app/`, its bundle, style, manifest and icons
 * beside it (the manifest and icons make it installable to a home screen). There is no service
 * worker: nothing personal is kept by the browser, and the page itself is `no-store`. Its script,
 * style, manifest and RPCs come from this server; merchants' logos from https.
 */
export function createCustomerAppPages(options: { mode: Mode }) {
  return createSinglePageApp({
    name: "The customer app",
    mount: "/app",
    buildFolder: "app",
    filePrefix: "",
    files: {
      "app.js": "text/javascript; charset=utf-8",
      "app.css": "text/css; charset=utf-8",
      "manifest.webmanifest": "application/manifest+json",
      "icon.svg": "image/svg+xml",
      "icon-192.png": "image/png",
      "icon-512.png": "image/png",
    },
    contentSecurityPolicy:
      "default-src 'self'; img-src 'self' https: data:; style-src 'self'; script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    mode: options.mode,
  });
}
