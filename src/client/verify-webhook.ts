import { timingSafeEqual } from "node:crypto";
import { fromJson, type DescMessage, type JsonValue, type MessageShape } from "@bufbuild/protobuf";
import { Webhook } from "standardwebhooks";
import {
  ChargeEventContentSchema,
  ContractEventContentSchema,
  RefundFailedContentSchema,
  RefundSucceededContentSchema,
  type ChargeEventContent,
  type ContractEventContent,
  type RefundFailedContent,
  type RefundSucceededContent,
} from "../../gen/payments/v1/webhooks_pb.js";
import { envelopeSignature } from "../domain/webhook-signature.js";

/** A delivery that is not a genuine, fresh furikomi webhook: answer it 400 and drop it. */
export class WebhookVerificationError extends Error {
  override name = "WebhookVerificationError";
}

interface EventOf<T extends string, C> {
  /** `mwh-…`: the same on every attempt and redelivery; deduplicate on it. */
  readonly id: string;
  /** When the event was recorded (ISO 8601 UTC). */
  readonly createdAt: string;
  readonly eventType: T;
  readonly content: C;
}

/**
 * A verified webhook, discriminated on `eventType` (docs/reference/contract.md#events, rule 1: the two failure events
 * have different shapes). `content` is decoded into the generated message of its event type.
 */
export type FurikomiWebhookEvent =
  | EventOf<
      "EVENT_TYPE_CHARGE_SUCCESS" | "EVENT_TYPE_CHARGE_FAIL" | "charge.created" | "charge.fail",
      ChargeEventContent
    >
  | EventOf<"EVENT_TYPE_REFUND_SUCCEEDED", RefundSucceededContent>
  | EventOf<"EVENT_TYPE_REFUND_FAILED", RefundFailedContent>
  | EventOf<"EVENT_TYPE_CONTRACT_ACTIVATED", ContractEventContent>;

const contentSchemas: Readonly<Record<FurikomiWebhookEvent["eventType"], DescMessage>> = Object.freeze({
  EVENT_TYPE_CHARGE_SUCCESS: ChargeEventContentSchema,
  EVENT_TYPE_CHARGE_FAIL: ChargeEventContentSchema,
  "charge.created": ChargeEventContentSchema,
  "charge.fail": ChargeEventContentSchema,
  EVENT_TYPE_REFUND_SUCCEEDED: RefundSucceededContentSchema,
  EVENT_TYPE_REFUND_FAILED: RefundFailedContentSchema,
  EVENT_TYPE_CONTRACT_ACTIVATED: ContractEventContentSchema,
});

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

/**
 * Verifies one webhook delivery and returns its typed event; throws WebhookVerificationError
 * otherwise. Checks both signatures, each keyed with the bytes of the `whsec_…` secret: the
 * Standard Webhooks headers (which also refuse a `webhook-timestamp` more than 5 minutes away
 * from now, so a captured delivery cannot be replayed later) and the envelope's `signature`
 * over `id.created_at.content`. Pass the body exactly as received, before any JSON parsing.
 *
 * @example
 * app.post("/webhooks", express.text({ type: "*\/*" }), (req, res) => {
 *   const event = verifyWebhook(req.body, req.headers, process.env.FURIKOMI_WEBHOOK_SECRET!);
 *   if (event.eventType === "EVENT_TYPE_CHARGE_FAIL") console.log(event.content.error?.message);
 *   res.sendStatus(200);
 * });
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: HeaderBag, secret: string): FurikomiWebhookEvent {
  const body = typeof rawBody === "string" ? rawBody : Buffer.from(rawBody).toString("utf8");
  const standardHeaders = {
    "webhook-id": headerOf(headers, "webhook-id"),
    "webhook-timestamp": headerOf(headers, "webhook-timestamp"),
    "webhook-signature": headerOf(headers, "webhook-signature"),
  };
  try {
    new Webhook(secret).verify(body, standardHeaders);
  } catch (error) {
    throw new WebhookVerificationError((error as Error).message);
  }

  const envelope = parseEnvelope(body);
  if (envelope.id !== standardHeaders["webhook-id"])
    throw new WebhookVerificationError("webhook-id does not match the envelope id");
  const expected = envelopeSignature(secret, {
    id: envelope.id,
    createdAt: envelope.created_at,
    contentJson: contentBytesOf(body),
  });
  if (!sameText(expected, envelope.signature)) throw new WebhookVerificationError("envelope signature does not match");

  const eventType = envelope.event_type as FurikomiWebhookEvent["eventType"];
  const schema = Object.hasOwn(contentSchemas, eventType) ? contentSchemas[eventType] : undefined;
  if (!schema)
    throw new WebhookVerificationError(`unknown event_type ${envelope.event_type}: update the furikomi client`);
  const content: MessageShape<DescMessage> = fromJson(schema, envelope.content, { ignoreUnknownFields: true });
  return { id: envelope.id, createdAt: envelope.created_at, eventType, content } as FurikomiWebhookEvent;
}

interface Envelope {
  id: string;
  signature: string;
  created_at: string;
  event_type: string;
  content: JsonValue;
}

function parseEnvelope(body: string): Envelope {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new WebhookVerificationError("body is not JSON");
  }
  const envelope = parsed as Partial<Envelope>;
  for (const field of ["id", "signature", "created_at", "event_type"] as const) {
    if (typeof envelope[field] !== "string") throw new WebhookVerificationError(`envelope field ${field} is missing`);
  }
  return envelope as Envelope;
}

/**
 * The content exactly as it appears in the body: the server writes it as the last field. The
 * marker cannot occur earlier, inside a JSON string, because its quote would be escaped there.
 */
function contentBytesOf(body: string): string {
  const marker = ',"content":';
  const start = body.indexOf(marker);
  const end = body.lastIndexOf("}");
  if (start < 0 || end < start) throw new WebhookVerificationError("envelope content is missing");
  return body.slice(start + marker.length, end);
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function headerOf(headers: HeaderBag, name: string): string {
  const value =
    headers instanceof Headers
      ? headers.get(name)
      : Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) throw new WebhookVerificationError(`missing ${name} header`);
  return text;
}
