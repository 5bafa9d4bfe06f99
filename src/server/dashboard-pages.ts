import type { Mode } from "../config.js";
import { createSinglePageApp } from "./single-page-app.js";

/**
 * The merchant dashboard at `/dashboard/`, its bundle and style under `/dashboard/assets/`. It
 * loads nothing from elsewhere: its script, style and RPCs come from this server; the TOTP QR
 * code is a data: image and the result CSV a blob: download.
 */
export function createDashboardPages(options: { mode: Mode }) {
  return createSinglePageApp({
    name: "The dashboard",
    mount: "/dashboard",
    buildFolder: "dashboard",
    filePrefix: "assets/",
    files: { "app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8" },
    contentSecurityPolicy:
      "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    mode: options.mode,
  });
}
