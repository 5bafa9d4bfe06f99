import { CompiledQuery, sql, type Kysely, type SelectQueryBuilder } from "kysely";
import type { Database } from "./schema.js";
import type { DialectName, Storage } from "./database.js";

/** A handle inside a write transaction. */
export type Tx = Kysely<Database>;

type Unit = {
  fn: (trx: Tx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** False: settled once committed, before the fsync (see WriteOptions). */
  awaitDurable: boolean;
};

export interface WriteOptions {
  /**
   * false: the write is answered once committed, before it is on disk. Only for a write that a
   * later durable write of the same request covers (SQLite's log is written in commit order, so
   * that write on disk means this one is), or whose loss a retry recovers: an idempotency key's
   * claim and its stored response (docs/architecture.md#durability). Default true.
   */
  readonly awaitDurable?: boolean;
}

/**
 * The one transaction helper. Every read-then-write that guards money goes through `write`:
 * on SQLite one BEGIN IMMEDIATE transaction (writers cannot interleave), on PostgreSQL a
 * transaction whose rows are locked with `lockRows`, retried on serialization failures.
 *
 * On SQLite concurrent writes share a commit (group commit): each runs in its own savepoint of
 * one transaction, so a failing unit rolls back alone (a unit alone runs in the transaction
 * itself); a batch is acknowledged once the fsync after its commit is done (Storage.durable),
 * while the next batch already runs.
 */
export class Transactor {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  readonly #storage: Storage;
  #queue: Unit[] = [];
  #draining = false;

  constructor(storage: Storage) {
    this.#storage = storage;
    this.db = storage.db;
    this.dialect = storage.dialect;
  }

  write<T>(fn: (trx: Tx) => Promise<T>, options: WriteOptions = {}): Promise<T> {
    if (this.dialect === "postgres") return this.#writePostgres(fn);
    return new Promise<T>((resolve, reject) => {
      const awaitDurable = options.awaitDurable ?? true;
      this.#queue.push({ fn, resolve: resolve as (value: unknown) => void, reject, awaitDurable });
      if (!this.#draining) void this.#drain();
    });
  }

  /** Adds FOR UPDATE on PostgreSQL; SQLite's BEGIN IMMEDIATE already excludes other writers. */
  lockRows<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O> {
    return this.dialect === "postgres" ? query.forUpdate() : query;
  }

  /**
   * Serializes writers of one key for the rest of the transaction, where there may be no row to
   * lock yet (the first code of a never-seen e-mail): a PostgreSQL transaction-scoped advisory
   * lock; SQLite's BEGIN IMMEDIATE already excludes other writers.
   */
  async lockKey(trx: Tx, key: string): Promise<void> {
    if (this.dialect === "postgres") await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      // Let requests that already arrived reach the queue first, so they share this commit.
      await new Promise((resolve) => setImmediate(resolve));
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, 256);
        await this.#commitBatch(batch);
      }
    } finally {
      this.#draining = false;
    }
  }

  async #commitBatch(batch: Unit[]): Promise<void> {
    const outcomes: Array<{ ok: boolean; value: unknown }> = [];
    try {
      await this.db.connection().execute(async (conn) => {
        await conn.executeQuery(control.begin);
        try {
          for (const unit of batch) {
            // A unit alone needs no savepoint: if it fails, the whole transaction rolls back (below).
            // A savepoint makes SQLite journal every page the unit changes before changing it,
            // and a Zengin result file's transaction changes tens of thousands.
            if (batch.length === 1) {
              outcomes.push({ ok: true, value: await unit.fn(conn) });
              continue;
            }
            await conn.executeQuery(control.savepoint);
            try {
              outcomes.push({ ok: true, value: await unit.fn(conn) });
              await conn.executeQuery(control.release);
            } catch (error) {
              await conn.executeQuery(control.rollbackTo);
              await conn.executeQuery(control.release);
              outcomes.push({ ok: false, value: error });
            }
          }
          await conn.executeQuery(control.commit);
        } catch (error) {
          await conn.executeQuery(control.rollback).catch(() => {});
          throw error;
        }
      });
    } catch (error) {
      for (const unit of batch) unit.reject(error);
      return;
    }
    const settle = (unit: Unit, i: number) =>
      outcomes[i].ok ? unit.resolve(outcomes[i].value) : unit.reject(outcomes[i].value);
    batch.forEach((unit, i) => !unit.awaitDurable && settle(unit, i));
    const durable = batch.filter((unit) => unit.awaitDurable);
    if (durable.length === 0) return;
    // Not awaited: the next batch runs while this one's fsync is under way.
    this.#storage.durable().then(
      () => batch.forEach((unit, i) => unit.awaitDurable && settle(unit, i)),
      (error) => durable.forEach((unit) => unit.reject(error)),
    );
  }

  async #writePostgres<T>(fn: (trx: Tx) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.transaction().execute(fn);
      } catch (error) {
        const code = (error as { code?: string }).code;
        const retryable = code === "40001" || code === "40P01";
        if (!retryable || attempt >= 5) throw error;
        await new Promise((r) => setTimeout(r, Math.random() * 20 * attempt));
      }
    }
  }
}

/** The group commit's own statements on SQLite, built once (a raw sql`…` is built and compiled on every run). */
const control = {
  begin: CompiledQuery.raw("begin immediate"),
  savepoint: CompiledQuery.raw("savepoint unit"),
  release: CompiledQuery.raw("release savepoint unit"),
  rollbackTo: CompiledQuery.raw("rollback to savepoint unit"),
  commit: CompiledQuery.raw("commit"),
  rollback: CompiledQuery.raw("rollback"),
};

/** True when an error is a unique-constraint violation, on either database. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e?.code === "23505" || e?.code === "SQLITE_CONSTRAINT_UNIQUE" || e?.code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}
