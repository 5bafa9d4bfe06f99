import { hash, randomBytes } from "node:crypto";
import type { ModeRules } from "./mode.js";

/** `sk_test_…` in sandbox, `sk_live_…` in production (ModeRules.apiKeyPrefix). */
export function newApiKey(prefix: ModeRules["apiKeyPrefix"]): string {
  return prefix + randomBytes(24).toString("base64url");
}

/**
 * Keys are stored as SHA-256 hashes: high-entropy secrets need no slow hash. Every API call hashes
 * its key; the one-shot `hash` takes a third of the time of a `createHash` object.
 */
export function hashApiKey(key: string): string {
  return hash("sha256", key, "hex");
}

/** Webhook signing secret: whsec_ + base64 of 32 random bytes (docs/reference/contract.md#webhooks). */
export function newWebhookSecret(): string {
  return "whsec_" + randomBytes(32).toString("base64");
}
