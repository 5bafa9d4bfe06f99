import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { Webhook } from "standardwebhooks";
import type { FlowContext } from "../../src/flows/flow-context.js";
import { setWebhookUrl, type CreatedMerchant } from "../../src/flows/merchants.js";

/** How the receiver answers a request: a status, hold it open without answering, or drop the connection. */
export type Behaviour = { status: number; delayMs?: number } | "hang" | "drop";

export interface ReceivedWebhook {
  id: string;
  signature: string;
  created_at: string;
  event_type: string;
  content: Record<string, unknown>;
  /** The body as it came, and the content bytes within it. */
  raw: string;
  rawContent: string;
  headers: IncomingMessage["headers"];
  /** Wall-clock arrival and answer (ms). */
  at: number;
  answeredAt?: number;
}

export interface WebhookReceiver {
  readonly url: string;
  /** Verified requests answered 2xx, in arrival order. */
  readonly delivered: ReceivedWebhook[];
  /** Every verified request, whatever the answer (the webhook-id of each attempt). */
  readonly requests: ReceivedWebhook[];
  /** Requests that failed verification (should stay empty). */
  readonly rejected: string[];
  /** Requests being held open right now ("hang"). */
  readonly hanging: number;
  behave(behaviour: Behaviour): void;
  /** Resolves once `predicate` holds; polls the in-memory log (no clock involved). */
  waitFor(predicate: (r: WebhookReceiver) => boolean, timeoutMs?: number): Promise<void>;
  /** Drops the connections held open by "hang". */
  releaseHanging(): void;
  close(): Promise<void>;
}

/**
 * A real HTTP receiver on loopback that verifies every request as a merchant would: the Standard
 * Webhooks headers with the `standardwebhooks` package, and the envelope's `signature` with a
 * hand-written HMAC-SHA256 over `id.created_at.content` keyed with the decoded `whsec_` secret.
 */
export async function startWebhookReceiver(
  secret: string,
  behaviour: Behaviour = { status: 200 },
): Promise<WebhookReceiver> {
  let current = behaviour;
  const held = new Set<Socket>();
  const delivered: ReceivedWebhook[] = [];
  const requests: ReceivedWebhook[] = [];
  const rejected: string[] = [];

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const answer = current;
    let received: ReceivedWebhook;
    try {
      received = verify(secret, raw, req.headers);
    } catch (error) {
      rejected.push(`${(error as Error).message}: ${raw.slice(0, 200)}`);
      res.writeHead(400).end();
      return;
    }
    requests.push(received);
    if (answer === "drop") {
      req.socket.destroy();
      return;
    }
    if (answer === "hang") {
      held.add(req.socket);
      req.socket.once("close", () => held.delete(req.socket));
      return;
    }
    if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
    if (answer.status >= 200 && answer.status < 300) delivered.push(received);
    received.answeredAt = Date.now();
    res.writeHead(answer.status, { "content-type": "text/plain" }).end(answer.status < 300 ? "ok" : "nope");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${port}/webhooks`,
    delivered,
    requests,
    rejected,
    get hanging() {
      return held.size;
    },
    behave(next) {
      current = next;
    },
    async waitFor(predicate, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(receiver)) {
        if (Date.now() > deadline)
          throw new Error(
            `webhook receiver: condition not met in ${timeoutMs} ms (${delivered.length} delivered, ${requests.length} requests)`,
          );
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    releaseHanging() {
      for (const socket of held) socket.destroy();
    },
    async close() {
      receiver.releaseHanging();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return receiver;
}

/** The merchant-side checks, written independently of the server's signing code. */
export function verify(secret: string, raw: string, headers: IncomingMessage["headers"]): ReceivedWebhook {
  // 1. Standard Webhooks, with the reference package (checks the timestamp tolerance too).
  new Webhook(secret).verify(raw, {
    "webhook-id": String(headers["webhook-id"]),
    "webhook-timestamp": String(headers["webhook-timestamp"]),
    "webhook-signature": String(headers["webhook-signature"]),
  });
  // 2. The envelope's own signature, by hand, over the content bytes exactly as in the body.
  const envelope = JSON.parse(raw);
  const marker = ',"content":';
  const rawContent = raw.slice(raw.indexOf(marker) + marker.length, -1);
  if (JSON.stringify(JSON.parse(rawContent)) !== JSON.stringify(envelope.content))
    throw new Error("content is not the last member");
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const expected =
    "sha256=" + createHmac("sha256", key).update(`${envelope.id}.${envelope.created_at}.${rawContent}`).digest("hex");
  if (
    expected.length !== envelope.signature.length ||
    !timingSafeEqual(Buffer.from(expected), Buffer.from(envelope.signature))
  ) {
    throw new Error("signature mismatch");
  }
  if (headers["webhook-id"] !== envelope.id) throw new Error("webhook-id differs from the envelope id");
  return { ...envelope, raw, rawContent, headers, at: Date.now() };
}

/** A receiver for one merchant's webhooks, with the merchant's webhook URL pointed at it. */
export async function receiveWebhooksOf(ctx: FlowContext, merchant: CreatedMerchant): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver(merchant.webhook_secret);
  await setWebhookUrl(ctx, merchant.merchant_id, receiver.url);
  return receiver;
}
