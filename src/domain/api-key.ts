import { createHash, randomBytes } from "node:crypto";
import type { Mode } from "./mode.js";

/** `sk_test_…` in sandbox, `sk_live_…` in production: a key of the other mode is refused. */
export function keyPrefixFor(mode: Mode): string {
  return mode === "production" ? "sk_live_" : "sk_test_";
}

export function newApiKey(mode: Mode): string {
  return keyPrefixFor(mode) + randomBytes(24).toString("base64url");
}

/** Keys are stored as SHA-256 hashes: high-entropy secrets need no slow hash. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** Webhook signing secret: whsec_ + base64 of 32 random bytes (docs/reference/contract.md#webhooks). */
export function newWebhookSecret(): string {
  return "whsec_" + randomBytes(32).toString("base64");
}
