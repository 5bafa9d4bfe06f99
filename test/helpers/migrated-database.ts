import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { openStorage } from "../../src/storage/database.js";
import { registerTeardown } from "./teardown.js";

/**
 * Databases the test servers start on, already migrated. Migrating a new PostgreSQL schema is about
 * 250 DDL statements (a second or more on two shared cores) and a new SQLite file a few hundred
 * milliseconds, for each of the suite's ~500 server starts. So a worker migrates once and reuses:
 * - PostgreSQL: a stopped server's schema is emptied (every row of every table but Kysely's own
 *   deleted, sequences restarted) and handed to the worker's next server. The server still runs its
 *   migrations on start; it finds them all applied.
 * - SQLite: the worker migrates one template file and each server gets a copy of it.
 * A migration only creates tables and copies rows that already exist, so an emptied or copied
 * database is the state a new one reaches. Tests of migrations themselves use freshDatabaseUrl.
 * Everything is named after the run (test/helpers/global-setup.ts drops what is left at its end).
 */
export const testRun = process.env.FURIKOMI_TEST_RUN ?? String(process.pid);

const postgresPool: string[] = [];
let schemaCounter = 0;
let sqliteTemplate: Promise<string> | undefined;

/** A schema or SQLite file in the migrated state; `release` gives it back (or removes it). */
export async function migratedDatabaseUrl(
  dialect: "sqlite" | "postgres",
  postgresUrl: string,
  sqliteParent = tmpdir(),
): Promise<{ url: string; release: () => Promise<void> }> {
  if (dialect === "sqlite") {
    const template = await (sqliteTemplate ??= migrateSqliteTemplate());
    const dir = mkdtempSync(join(sqliteParent, "furikomi-"));
    copyFileSync(template, join(dir, "test.db"));
    const release = registerTeardown("database", async () => rmSync(dir, { recursive: true, force: true }));
    return { url: `file:${join(dir, "test.db")}`, release };
  }
  const schema = postgresPool.pop() ?? `t_${testRun}_${process.pid}_${schemaCounter++}`;
  const release = registerTeardown("database", () => emptyInto(postgresUrl, schema));
  return { url: `${postgresUrl}?schema=${schema}`, release };
}

async function migrateSqliteTemplate(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), `furikomi-template-${testRun}-`));
  const path = join(dir, "template.db");
  const storage = await openStorage(`file:${path}`);
  await storage.close(); // the last connection's close checkpoints the write-ahead log into the file
  if (existsSync(`${path}-wal`)) throw new Error("the SQLite template kept a write-ahead log");
  // The worker's template goes with the worker (global-setup.ts removes it if the worker dies).
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  return path;
}

/**
 * Empties the schema for the next server, if its tables, columns, indexes, constraints and
 * triggers are still those the migrations made (some tests drop or alter a table to see the
 * service fail); any other schema, or one that cannot be emptied, is dropped.
 */
async function emptyInto(postgresUrl: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    const shape = await shapeOf(client, schema);
    if (!shape) return; // never migrated (the server did not start): nothing to reuse
    migratedShape ??= await migratedShapeOf(client, postgresUrl);
    if (shape !== migratedShape) throw new Error(`schema ${schema} was changed by its test`);
    const { rows } = await client.query<{ kind: string; name: string }>(
      `select 'table' as kind, tablename as name from pg_tables where schemaname = $1 and tablename not like 'kysely%'
       union all select 'sequence', sequencename from pg_sequences where schemaname = $1`,
      [schema],
    );
    // DELETE, not TRUNCATE: a few rows per table, where TRUNCATE replaces each table's files (slower
    // than creating the schema anew). The replica role skips the triggers (foreign keys, the audit
    // log's append-only rule) for this cleaning session only; a lock timeout keeps a connection the
    // test left open from hanging the teardown.
    const statements = rows.map(({ kind, name }) =>
      kind === "table" ? `delete from ${schema}."${name}"` : `select setval('${schema}."${name}"', 1, false)`,
    );
    await client.query(
      `set lock_timeout = '10s'; set session_replication_role = replica; begin; ${statements.join("; ")}; commit`,
    );
    postgresPool.push(schema);
  } catch {
    await client.query("rollback").catch(() => undefined);
    await client.query(`drop schema if exists ${schema} cascade`).catch(() => undefined);
  } finally {
    await client.end();
  }
}

/** The shape the migrations give a schema, taken once per worker from a schema migrated for it. */
let migratedShape: string | undefined;

async function migratedShapeOf(client: pg.Client, postgresUrl: string): Promise<string> {
  const schema = `t_${testRun}_${process.pid}_${schemaCounter++}`;
  await (await openStorage(`${postgresUrl}?schema=${schema}`)).close();
  const shape = await shapeOf(client, schema);
  if (!shape) throw new Error("a migrated schema has no tables");
  postgresPool.push(schema);
  return shape;
}

/** A digest of the schema's definitions and applied migrations, with its own name left out. */
async function shapeOf(client: pg.Client, schema: string): Promise<string | undefined> {
  const { rows } = await client.query<{ tables: number; shape: string }>(
    `select (select count(*)::int from pg_tables where schemaname = $1) as tables,
            md5(replace(string_agg(item, '|' order by item), $1 || '.', '')) as shape from (
       select 'c ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' ||
              coalesce(column_default, '') from information_schema.columns where table_schema = $1
       union all select 'i ' || indexdef from pg_indexes where schemaname = $1
       union all select 'k ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
              from pg_constraint where connamespace = $1::regnamespace
       union all select 't ' || tgrelid::regclass::text || ' ' || tgname || ' ' || tgenabled::text from pg_trigger
              where not tgisinternal and tgrelid in (select oid from pg_class where relnamespace = $1::regnamespace)
     ) items(item)`,
    [schema],
  );
  if (!rows[0] || rows[0].tables === 0) return undefined;
  const { rows: applied } = await client.query<{ names: string }>(
    `select string_agg(name, ',' order by name) as names from ${schema}.kysely_migration`,
  );
  return `${rows[0].shape} ${applied[0]?.names}`;
}
