import { randomUUID } from "node:crypto";
import { sql, type Kysely } from "kysely";
import pg from "pg";
import type { Logger } from "pino";
import { postgresTarget } from "./database.js";
import type { Database } from "./schema.js";
import { limits } from "../domain/limits.js";

/** Work a flow hands to a background worker after its transaction commits. */
export type WakeTopic = "events" | "jobs";

const topics: ReadonlySet<string> = new Set<WakeTopic>(["events", "jobs"]);
const reconnectMs = { first: limits.wakeReconnectFirstMs, max: limits.wakeReconnectMaxMs };

/**
 * Wake-ups between instances sharing one PostgreSQL: after a commit an instance NOTIFYs the
 * topic, and every other instance LISTENing on its own connection rings its worker at once
 * instead of at its next poll. Best effort: the workers still poll, so a lost notification or a
 * dropped listener only delays work. The channel is per schema, so deployments (and test runs)
 * sharing a database do not wake each other.
 */
export class WakeChannel {
  readonly #channel: string;
  readonly #instance = randomUUID();
  readonly #pending = new Set<WakeTopic>();
  #listener: pg.Client | undefined;
  #retryMs = reconnectMs.first;
  #retryTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly databaseUrl: string,
    private readonly logger: Logger,
  ) {
    const { schema } = postgresTarget(databaseUrl);
    // A channel is an identifier: at most 63 bytes (schema names are ASCII).
    this.#channel = `furikomi_wake${schema ? `_${schema}` : ""}`.slice(0, 63);
  }

  /** Tells the other instances; the topics rung during one turn of the event loop go in one round trip. */
  publish(topic: WakeTopic): void {
    if (this.#closed) return;
    if (this.#pending.size === 0) setImmediate(() => void this.#flush());
    this.#pending.add(topic);
  }

  /** Listens on a dedicated connection (reconnecting when it drops) and rings `onWake` for other instances' topics. */
  async listen(onWake: (topic: WakeTopic) => void): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client({ connectionString: postgresTarget(this.databaseUrl).connectionString });
    client.on("notification", (message) => {
      const [from, topic] = (message.payload ?? "").split(":");
      if (from !== this.#instance && topics.has(topic)) onWake(topic as WakeTopic);
    });
    client.on("error", (error) => this.#dropped(client, onWake, error));
    client.on("end", () => this.#dropped(client, onWake));
    try {
      await client.connect();
      await client.query(`listen "${this.#channel}"`);
    } catch (error) {
      this.#dropped(client, onWake, error);
      return;
    }
    if (this.#closed) return void client.end().catch(() => {});
    this.#listener = client;
    this.#retryMs = reconnectMs.first;
    // Whatever was committed while no one listened is picked up now.
    topics.forEach((topic) => onWake(topic as WakeTopic));
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.end().catch(() => {});
  }

  async #flush(): Promise<void> {
    const rung = [...this.#pending];
    this.#pending.clear();
    if (this.#closed) return;
    try {
      await sql`select pg_notify(${this.#channel}, t) from unnest(${rung.map((topic) => `${this.#instance}:${topic}`)}::text[]) as t`.execute(
        this.db,
      );
    } catch (error) {
      this.logger.warn(
        { err: error },
        "wake notification not sent; other instances pick the work up at their next poll",
      );
    }
  }

  #dropped(client: pg.Client, onWake: (topic: WakeTopic) => void, error?: unknown): void {
    if (this.#listener === client) this.#listener = undefined;
    client.removeAllListeners("end");
    client.end().catch(() => {});
    if (this.#closed || this.#retryTimer) return;
    this.logger.warn({ err: error, retryMs: this.#retryMs }, "wake listener disconnected; polling until it is back");
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      void this.listen(onWake);
    }, this.#retryMs);
    this.#retryTimer.unref();
    this.#retryMs = Math.min(this.#retryMs * 2, reconnectMs.max);
  }
}
