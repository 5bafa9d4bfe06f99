import type { Logger } from "pino";
import type { FlowContext } from "../flows/flow-context.js";
import {
  attemptDelivery,
  claimDueEvents,
  recordAttempts,
  type AttemptResult,
  type ClaimedEvent,
  type DeliveryDeps,
  type DeliveryOutcome,
} from "../flows/webhook-delivery.js";
import { systemClock } from "../ports/clock.js";
import type { WebhookTransport } from "../ports/webhook-transport.js";
import { WakeLoop } from "./wake-loop.js";

export interface DispatcherOptions {
  /** Attempts in flight in this process, all merchants together (default 64). */
  concurrency?: number;
  /** Attempts in flight per merchant (default 8): one dead endpoint holds at most this many slots. */
  perMerchant?: number;
  /** Fallback poll when nobody rings (default 1 s). */
  pollMs?: number;
  /** How long an attempt owns its event; must outlast the attempt timeout. */
  leaseMs: number;
  /** How long `stop()` waits for in-flight attempts before cutting them short (default: leaseMs). */
  shutdownGraceMs?: number;
  random?: () => number;
}

/**
 * Delivers the webhook outbox: claims due events with a lease (an attempt whose process died is
 * taken over when its lease lapses, so nothing in flight at a crash is lost), sends them with a
 * bound per merchant and overall, and claims again as slots free up. Woken by
 * `ctx.wake("events")` after a commit, and polls as a fallback.
 */
export class WebhookDispatcher {
  // One entry per attempt (a redelivered event can have two at once).
  readonly #inFlight = new Set<{ done: Promise<void>; abort: AbortController }>();
  readonly #busy = new Map<string, number>();
  readonly #deps: DeliveryDeps;
  readonly #loop: WakeLoop;
  // Claims run one at a time, so drain() never misses one that is half done.
  #claiming: Promise<number> = Promise.resolve(0);
  // Answers that came in during one turn of the event loop are recorded in one transaction.
  // Set by stop(): no more claims, from the loop or from drain().
  #closed = false;
  // Attempts finished so far, so drain() can tell whether one finished while it claimed.
  #settled = 0;
  #unrecorded: Array<{ result: AttemptResult; settle: (outcome: Promise<DeliveryOutcome>) => void }> = [];

  constructor(
    private readonly ctx: FlowContext,
    private readonly logger: Logger,
    private readonly transport: WebhookTransport,
    private readonly options: DispatcherOptions,
  ) {
    this.#deps = { transport, wallClock: systemClock, random: options.random ?? Math.random };
    this.#loop = new WakeLoop(
      async () => (await this.#claimOnce()) > 0,
      (error) => this.logger.error({ err: error }, "webhook dispatcher claim failed"),
      options.pollMs ?? 1000,
    );
  }

  start(): void {
    this.#loop.start();
  }

  /** Rings the dispatcher: committed events go out now rather than at the next poll. */
  wake(): void {
    this.#loop.wake();
  }

  /** Delivers every event due now, retries that fall due meanwhile included (tests call it after moving the clock). */
  async drain(): Promise<void> {
    for (;;) {
      // An attempt recorded while the claim ran may have unblocked the next event of its charge
      // after the claim had looked: then the claim proves nothing, and we look again.
      const settledBefore = this.#settled;
      const claimed = await this.#claimOnce();
      if (claimed > 0 || this.#settled !== settledBefore) continue;
      if (this.#inFlight.size === 0) return;
      await Promise.race([...this.#inFlight].map((f) => f.done));
    }
  }

  /** Final: stops claiming, lets in-flight attempts finish (up to the grace period), then cuts the rest short. */
  async stop(): Promise<void> {
    this.#closed = true;
    this.#loop.stop();
    await this.#claiming;
    const pending = [...this.#inFlight];
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(pending.map((f) => f.done)),
      new Promise((resolve) => (grace = setTimeout(resolve, this.options.shutdownGraceMs ?? this.options.leaseMs))),
    ]);
    clearTimeout(grace);
    for (const flight of this.#inFlight) flight.abort.abort();
    await Promise.all([...this.#inFlight].map((f) => f.done));
    this.transport.close();
  }

  #claimOnce(): Promise<number> {
    const next = this.#claiming.then(() => this.#claimAndStart());
    this.#claiming = next.catch(() => 0);
    return next;
  }

  async #claimAndStart(): Promise<number> {
    const capacity = (this.options.concurrency ?? 64) - this.#inFlight.size;
    if (capacity <= 0 || this.#closed) return 0;
    const claimed = await claimDueEvents(this.ctx, {
      capacity,
      perMerchant: this.options.perMerchant ?? 8,
      busy: this.#busy,
      leaseMs: this.options.leaseMs,
    });
    for (const event of claimed) this.#start(event);
    return claimed.length;
  }

  #record(result: AttemptResult): Promise<DeliveryOutcome> {
    return new Promise((settle) => {
      if (this.#unrecorded.length === 0) setImmediate(() => this.#flush());
      this.#unrecorded.push({ result, settle });
    });
  }

  #flush(): void {
    const batch = this.#unrecorded.splice(0);
    const outcomes = recordAttempts(
      this.ctx,
      this.#deps,
      batch.map((b) => b.result),
    );
    batch.forEach((b, i) => b.settle(outcomes.then((all) => all[i])));
  }

  #start(event: ClaimedEvent): void {
    const flight = { done: Promise.resolve(), abort: new AbortController() };
    this.#busy.set(event.merchantId, (this.#busy.get(event.merchantId) ?? 0) + 1);
    flight.done = attemptDelivery(this.ctx, this.#deps, event, flight.abort.signal)
      .then((result) => this.#record(result))
      .then(
        (outcome) => {
          if (outcome === "failed")
            this.logger.warn(
              { event: event.id, merchant: event.merchantId },
              "webhook event failed after the retry window",
            );
        },
        (error) =>
          this.logger.error(
            { err: error, event: event.id },
            "webhook delivery could not be recorded; the lease will lapse and it is retried",
          ),
      )
      .finally(() => {
        this.#settled++;
        this.#inFlight.delete(flight);
        const busy = (this.#busy.get(event.merchantId) ?? 1) - 1;
        if (busy > 0) this.#busy.set(event.merchantId, busy);
        else this.#busy.delete(event.merchantId);
        // A slot is free, and a later event of the same charge may be unblocked.
        this.wake();
      });
    this.#inFlight.add(flight);
  }
}
