import { randomBytes } from "node:crypto";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import type { Event } from "../../gen/payments/v1/resources_pb.js";
import { envelopeBody, standardWebhookHeaders } from "../domain/webhook-signature.js";
import { limits } from "../domain/limits.js";

export interface ListenOptions {
  apiKey: string;
  /** The local webhook handler, e.g. http://127.0.0.1:3000/webhooks. */
  forwardTo: string;
  baseUrl: string;
  /** Signing secret for the forwarded envelopes; a session secret is made up when absent. */
  secret?: string;
  intervalMs: number;
}

// Events can commit a little after their created_at: look back this far on every poll.
const { cliListenLookBackMs: lookBackMs, cliListenForwardTimeoutMs: forwardTimeoutMs } = limits;

/**
 * `furikomi listen`: polls the merchant's events through the API (ListEvents) and forwards each
 * new one to a local URL as the same envelope (same id, created_at, event_type, content), signed
 * with the merchant's secret or a session secret, printing one line per event. It starts from
 * "now": events that exist when it starts are not forwarded. Runs until SIGINT or SIGTERM.
 */
export async function listen(options: ListenOptions): Promise<void> {
  const auth: Interceptor = (next) => (req) => {
    req.header.set("authorization", `Bearer ${options.apiKey}`);
    return next(req);
  };
  const client = createClient(
    PaymentService,
    createConnectTransport({ baseUrl: options.baseUrl, httpVersion: "1.1", interceptors: [auth] }),
  );
  const secret = options.secret ?? `whsec_${randomBytes(32).toString("base64")}`;

  // What was forwarded (or existed at start), by id, with its created_at for pruning.
  const seen = new Map<string, number>();
  let newest: number | undefined;

  /** Every event created after `since` (all of them without it), oldest first. */
  async function eventsSince(since: number | undefined): Promise<Event[]> {
    const events: Event[] = [];
    let pageToken = "";
    do {
      const page = await client.listEvents({
        pageSize: 100,
        pageToken,
        createdAfter: since === undefined ? undefined : timestampFromDate(new Date(since)),
      });
      events.push(...page.events);
      pageToken = page.nextPageToken;
    } while (pageToken && since !== undefined);
    return events.reverse();
  }

  function remember(event: Event): void {
    const createdAt = timestampDate(event.createdAt!).getTime();
    seen.set(event.id, createdAt);
    newest = Math.max(newest ?? createdAt, createdAt);
  }

  // Start from "now": everything that exists already counts as seen.
  for (const event of await eventsSince(undefined)) remember(event);
  if (newest !== undefined) for (const event of await eventsSince(newest - lookBackMs)) remember(event);
  const secretNote = options.secret ? "the given secret" : `the session secret ${secret}`;
  process.stderr.write(
    `Ready: forwarding new events of ${options.baseUrl} to ${options.forwardTo}, signed with ${secretNote}. Ctrl-C to stop.\n`,
  );

  let stopped = false;
  let wakeUp: () => void = () => {};
  const stop = () => {
    stopped = true;
    wakeUp();
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);

  while (!stopped) {
    try {
      const since = newest === undefined ? undefined : newest - lookBackMs;
      for (const event of await eventsSince(since)) {
        if (stopped || seen.has(event.id)) continue;
        remember(event);
        console.log(`${new Date().toISOString()}  ${event.id}  ${event.eventTypeName}  ${await forward(event)}`);
      }
      if (newest !== undefined)
        for (const [id, createdAt] of seen) if (createdAt < newest - 2 * lookBackMs) seen.delete(id);
    } catch (error) {
      process.stderr.write(`polling ${options.baseUrl} failed: ${(error as Error).message}\n`);
    }
    await new Promise<void>((resolve) => {
      wakeUp = resolve;
      setTimeout(resolve, options.intervalMs);
    });
  }

  /** POSTs the re-signed envelope; answers the local status ("200") or the error. */
  async function forward(event: Event): Promise<string> {
    const body = envelopeBody(secret, {
      id: event.id,
      createdAt: timestampDate(event.createdAt!).toISOString(),
      eventType: event.eventTypeName,
      contentJson: event.contentJson,
    });
    try {
      const response = await fetch(options.forwardTo, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/json", ...standardWebhookHeaders(secret, event.id, body, new Date()) },
        body,
        signal: AbortSignal.timeout(forwardTimeoutMs),
      });
      await response.body?.cancel();
      return String(response.status);
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      return `error: ${cause?.code ?? (error as Error).message}`;
    }
  }
}
