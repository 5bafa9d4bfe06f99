import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";

/** What identifies one event on the wire; `contentJson` is the outbox's content, byte for byte. */
export interface EnvelopeParts {
  id: string;
  createdAt: string;
  eventType: string;
  contentJson: string;
}

/** The signing key: the bytes the `whsec_…` secret encodes (docs/reference/contract.md#webhooks). */
export function signingKey(secret: string): Buffer {
  return Buffer.from(secret.replace(/^whsec_/, ""), "base64");
}

/**
 * The envelope's `signature`: "sha256=" + hex HMAC-SHA256 over
 * `id + "." + created_at + "." + <content JSON exactly as in the body>`.
 */
export function envelopeSignature(
  secret: string,
  parts: Pick<EnvelopeParts, "id" | "createdAt" | "contentJson">,
): string {
  const hmac = createHmac("sha256", signingKey(secret)).update(`${parts.id}.${parts.createdAt}.${parts.contentJson}`);
  return `sha256=${hmac.digest("hex")}`;
}

/**
 * The POST body: the envelope (docs/reference/contract.md#webhooks) `{id, signature, created_at, event_type, content}`, written
 * as a string so that `content` is the signed bytes verbatim (re-serializing could reorder keys).
 */
export function envelopeBody(secret: string, parts: EnvelopeParts): string {
  const signature = envelopeSignature(secret, parts);
  return (
    `{"id":${JSON.stringify(parts.id)},"signature":${JSON.stringify(signature)},` +
    `"created_at":${JSON.stringify(parts.createdAt)},"event_type":${JSON.stringify(parts.eventType)},` +
    `"content":${parts.contentJson}}`
  );
}

/**
 * The Standard Webhooks headers of one attempt (webhook-id = the envelope id, the attempt's
 * timestamp in seconds, `v1,<base64>` over `id.timestamp.body`), signed with the same key.
 */
export function standardWebhookHeaders(
  secret: string,
  id: string,
  body: string,
  attemptedAt: Date,
): Record<string, string> {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(attemptedAt.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(id, attemptedAt, body),
  };
}
