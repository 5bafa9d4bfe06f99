import {
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteAdapter,
  SqliteDialect,
  sql,
  type LogEvent,
  type Migration,
} from "kysely";
import pg from "pg";
import { closeSync, fsyncSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import type { Database } from "./schema.js";
import { WalSync } from "./wal-sync.js";
import { SqliteDatabase, type SqliteStatement } from "./sqlite-driver.js";
import * as initial from "./migrations/0001-initial.js";
import * as sandboxKycReview from "./migrations/0002-sandbox-kyc-review.js";
import * as webhookDelivery from "./migrations/0003-webhook-delivery.js";
import * as idempotencyRecovery from "./migrations/0004-idempotency-recovery.js";
import * as dashboard from "./migrations/0005-dashboard.js";
import * as bankAuthentication from "./migrations/0006-bank-authentication.js";
import * as contractsByStatus from "./migrations/0007-contracts-by-status.js";
import * as paymentLinkTokenHash from "./migrations/0008-payment-link-token-hash.js";
import * as signInSecurity from "./migrations/0009-sign-in-security.js";
import * as bankAnswers from "./migrations/0010-bank-answers.js";
import * as linkBankAccounts from "./migrations/0011-link-bank-accounts.js";
import * as paymentLinkTokenSealed from "./migrations/0012-payment-link-token-sealed.js";
import * as mandates from "./migrations/0013-mandates.js";
import * as runningTotals from "./migrations/0014-running-totals.js";
import * as zengin from "./migrations/0015-zengin.js";
import * as bankAccountPerApproval from "./migrations/0016-bank-account-per-approval.js";
import * as bankAccountsSealed from "./migrations/0017-bank-accounts-sealed.js";
import * as team from "./migrations/0020-team.js";
import * as auditLogAppendOnly from "./migrations/0021-audit-log-append-only.js";
import * as customerApp from "./migrations/0022-customer-app.js";
import * as csvRowReasonJa from "./migrations/0023-csv-row-reason-ja.js";
import * as zenginItemsSealed from "./migrations/0024-zengin-items-sealed.js";
import * as zenginContracts from "./migrations/0026-zengin-contracts.js";
import * as zenginResultStyle from "./migrations/0027-zengin-result-style.js";
import { limits } from "../domain/limits.js";
import * as consignorNameCharacters from "./migrations/0025-consignor-name-characters.js";
import * as subscriptions from "./migrations/0028-subscriptions.js";
import * as accessEpochs from "./migrations/0029-access-epochs.js";
import * as subscriptionDunning from "./migrations/0030-subscription-dunning.js";
import * as subscriptionDebitDates from "./migrations/0031-subscription-debit-dates.js";
import * as merchantOnboarding from "./migrations/0032-merchant-onboarding.js";
import * as subscriptionCarryOver from "./migrations/0033-subscription-carry-over.js";
import * as subscriptionImports from "./migrations/0034-subscription-imports.js";
import * as chargesOneCustomerIndex from "./migrations/0035-charges-one-customer-index.js";
import * as lookupsByAccountAndCustomer from "./migrations/0036-lookups-by-account-and-customer.js";

export type DialectName = "sqlite" | "postgres";

export interface Storage {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  /** The PostgreSQL schema everything lives in (`?schema=`); unset: the server's default. */
  readonly schema?: string;
  /** Resolves once every commit made before the call is on disk (SQLite: see WalSync). */
  durable(): Promise<void>;
  close(): Promise<void>;
}

const migrations: Record<string, Migration> = {
  "0001-initial": initial,
  "0002-sandbox-kyc-review": sandboxKycReview,
  "0003-webhook-delivery": webhookDelivery,
  "0004-idempotency-recovery": idempotencyRecovery,
  "0005-dashboard": dashboard,
  "0006-bank-authentication": bankAuthentication,
  "0007-contracts-by-status": contractsByStatus,
  "0008-payment-link-token-hash": paymentLinkTokenHash,
  "0009-sign-in-security": signInSecurity,
  "0010-bank-answers": bankAnswers,
  "0011-link-bank-accounts": linkBankAccounts,
  "0012-payment-link-token-sealed": paymentLinkTokenSealed,
  "0013-mandates": mandates,
  "0014-running-totals": runningTotals,
  "0015-zengin": zengin,
  "0016-bank-account-per-approval": bankAccountPerApproval,
  "0017-bank-accounts-sealed": bankAccountsSealed,
  "0020-team": team,
  "0021-audit-log-append-only": auditLogAppendOnly,
  "0022-customer-app": customerApp,
  "0023-csv-row-reason-ja": csvRowReasonJa,
  "0024-zengin-items-sealed": zenginItemsSealed,
  "0025-consignor-name-characters": consignorNameCharacters,
  "0026-zengin-contracts": zenginContracts,
  "0027-zengin-result-style": zenginResultStyle,
  "0028-subscriptions": subscriptions,
  "0029-access-epochs": accessEpochs,
  "0030-subscription-dunning": subscriptionDunning,
  "0031-subscription-debit-dates": subscriptionDebitDates,
  "0032-merchant-onboarding": merchantOnboarding,
  "0033-subscription-carry-over": subscriptionCarryOver,
  "0034-subscription-imports": subscriptionImports,
  "0035-charges-one-customer-index": chargesOneCustomerIndex,
  "0036-lookups-by-account-and-customer": lookupsByAccountAndCustomer,
};

/**
 * Sees every query any storage of this process runs, with its parameters, once set: the seam the
 * query-plan test (test/api/query-plans.test.ts) records the hot paths' queries through. Unset
 * (always, outside that test), nothing is recorded.
 */
export const queryLog: { record?: (sql: string, parameters: readonly unknown[]) => void } = {};

const logQueries = (event: LogEvent) => queryLog.record?.(event.query.sql, event.query.parameters);

// int8 (bigint) columns hold yen balances, far below 2^53: read them as numbers.
pg.types.setTypeParser(20, (value) => Number(value));

/**
 * Opens the database named by DATABASE_URL: `file:path` or a plain path for SQLite,
 * `postgres://…` for PostgreSQL (`?schema=name` keeps a deployment or test run in its own schema).
 * Migrations run before it is returned.
 */
export async function openStorage(url: string, options: { migrateUpTo?: string } = {}): Promise<Storage> {
  const storage =
    url.startsWith("postgres://") || url.startsWith("postgresql://") ? openPostgres(url) : openSqlite(url);
  await migrate(storage, options.migrateUpTo);
  if (storage.dialect === "sqlite") syncDirectoryOf(url);
  return storage;
}

function openSqlite(url: string): Storage {
  const path = url.replace(/^file:/, "");
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SqliteDatabase(path);
  // Durable when acknowledged: commits reach the OS here, and the write-ahead log is fsynced
  // off the main thread before any write is acknowledged (WalSync).
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma(`busy_timeout = ${limits.sqliteBusyTimeoutMs}`);
  cacheStatements(sqlite);
  const db = new Kysely<Database>({ dialect: new LockingSqliteDialect({ database: sqlite }), log: logQueries });
  if (path === ":memory:") return { db, dialect: "sqlite", durable: async () => {}, close: () => db.destroy() };
  const wal = new WalSync(`${path}-wal`);
  return {
    db,
    dialect: "sqlite",
    durable: () => wal.sync(),
    close: async () => {
      await wal.close();
      await db.destroy();
    },
  };
}

/**
 * Kysely takes no lock to migrate SQLite (it assumes one process). Here the migrations run in one
 * exclusive transaction, so processes started at once on a new file (the server and the CLI)
 * migrate one after the other: the second waits (busy_timeout), then finds nothing left to do.
 */
class LockingSqliteAdapter extends SqliteAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`begin exclusive`.execute(db);
  }

  override async releaseMigrationLock(db: Kysely<unknown>): Promise<void> {
    // Kysely records each migration as it succeeds and stops at a failing one (an error in its
    // result, not a throw): committing keeps what was recorded, as without the lock.
    await sql`commit`.execute(db);
  }
}

class LockingSqliteDialect extends SqliteDialect {
  override createAdapter() {
    return new LockingSqliteAdapter();
  }
}

function openPostgres(url: string): Storage {
  const { connectionString, schema } = postgresTarget(url);
  // The schema goes in the startup packet, so every pooled connection is in it from its first query.
  const pool = new pg.Pool({ connectionString, max: 10, ...(schema ? { options: `-c search_path=${schema}` } : {}) });
  // A connection the database (or the network) drops fails its queries and is discarded by the
  // pool; its "error" event, unhandled, would end the process.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: logQueries });
  // PostgreSQL's commit returns once its log is flushed (synchronous_commit = on).
  return { db, dialect: "postgres", schema, durable: async () => {}, close: () => db.destroy() };
}

/** A PostgreSQL URL split into what pg connects to and the `?schema=` it works in (if any). */
export function postgresTarget(url: string): { connectionString: string; schema: string | undefined } {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get("schema") ?? undefined;
  parsed.searchParams.delete("schema");
  if (schema && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
  return { connectionString: parsed.toString(), schema };
}

/** The write-ahead log file is new after the first open: make its directory entry durable too. */
function syncDirectoryOf(url: string): void {
  const path = url.replace(/^file:/, "");
  if (path === ":memory:") return;
  const fd = openSync(dirname(path), "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Kysely prepares every query it runs; a query's SQL text repeats (values are parameters), so
 * keep each prepared statement and hand it out again. better-sqlite3 statements are reusable.
 */
function cacheStatements(sqlite: SqliteDatabase): void {
  const cache = new Map<string, SqliteStatement>();
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((source: string) => {
    let statement = cache.get(source);
    if (!statement) {
      statement = prepare(source);
      if (cache.size < limits.sqliteStatementCacheMax) cache.set(source, statement);
    }
    return statement;
  }) as typeof sqlite.prepare;
}

/** PostgreSQL codes of a schema, table or column that vanished during Kysely's all-schema look-up. */
const lookupRaces = new Set(["3F000", "42703", "42P01"]);

/** Runs every migration, or those up to `upTo` (a test building an older database's state). */
async function migrate({ db, schema }: Storage, upTo?: string): Promise<void> {
  // On PostgreSQL Kysely holds an advisory lock while it migrates, so instances starting together
  // migrate once; it creates the schema (tolerating a concurrent create) and keeps its own
  // bookkeeping tables there, so another schema's tables are not mistaken for this one's.
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableSchema: schema,
    // Features land in parallel, each with its own migration: one numbered before a migration a
    // database already ran (another feature's, landed first) still runs, so no migration may rely
    // on one numbered after it.
    allowUnorderedMigrations: true,
  });
  for (let attempt = 1; ; attempt++) {
    const { error } = await (upTo ? migrator.migrateTo(upTo) : migrator.migrateToLatest());
    if (!error) return;
    // Kysely looks for its tables through every schema of the database: one dropped meanwhile
    // (another deployment or test run cleaning up) fails that look-up. Look again.
    // Its look-up also reads every schema's columns: one a parallel migration renames or drops
    // meanwhile answers 42703 (undefined column) or 42P01 (undefined table). Look again for those too.
    if (!lookupRaces.has((error as { code?: string }).code ?? "") || attempt >= 5) throw error;
  }
}

/** Whether the database answers a trivial query (false on any error). */
export function databaseAnswers(db: Kysely<Database>): Promise<boolean> {
  return sql`select 1`.execute(db).then(
    () => true,
    () => false,
  );
}
