import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { openStorage, type Storage } from "../../src/storage/database.js";
import { dialects, freshDatabaseUrl } from "../helpers/test-server.js";
import { declaredSchema, type ColumnShape } from "../helpers/declared-schema.js";

// src/storage/schema.ts is written by hand beside the migrations (docs/architecture.md#storage):
// a fresh database, migrated, must have exactly the tables and columns it declares, on both databases.

/** Kysely's own bookkeeping tables: not part of the service's schema. */
const kyselyTables = new Set(["kysely_migration", "kysely_migration_lock"]);

/**
 * Where a database cannot say what schema.ts says, and why that is still true of every row read.
 * Keep this short: each entry is a column a query could, in principle, find differently.
 */
const dialectExceptions: Record<string, string> = {
  // SQLite cannot add a column with a sequence default: the events_seq trigger (migration 0003)
  // numbers each row on insert, so no row is read with a null seq.
  "sqlite:events.seq": "nullable",
};

/** A database's column type, coarsely: what a TypeScript column type can say about it. */
function coarseType(databaseType: string): ColumnShape["type"] | string {
  const type = databaseType.toLowerCase();
  if (/^(text|varchar|character varying|char)/.test(type)) return "text";
  if (/^(int|integer|bigint|smallint|serial|bigserial|int2|int4|int8)$/.test(type)) return "integer";
  if (/^(real|double|float|numeric|decimal)/.test(type)) return "real";
  if (/^(blob|bytea)$/.test(type)) return "blob";
  if (/^bool/.test(type)) return "bool";
  if (/^(timestamp|date|time)/.test(type)) return "timestamp";
  return type;
}

/** Every table and column of the migrated database, as `table.column` → shape. */
async function migratedSchema(storage: Storage): Promise<Map<string, ColumnShape>> {
  const columns = new Map<string, ColumnShape>();
  if (storage.dialect === "sqlite") {
    const tables = await sql<{ name: string }>`
      select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(storage.db);
    for (const { name: table } of tables.rows) {
      if (kyselyTables.has(table)) continue;
      const info = await sql<{ name: string; type: string; notnull: number; pk: number }>`
        select name, type, "notnull", pk from pragma_table_info(${table})`.execute(storage.db);
      // SQLite lets a non-integer primary key hold NULL (a legacy quirk); nothing here writes one.
      for (const c of info.rows)
        columns.set(`${table}.${c.name}`, { type: coarseType(c.type), nullable: c.notnull === 0 && c.pk === 0 });
    }
    return columns;
  }
  const info = await sql<{ table_name: string; column_name: string; udt_name: string; is_nullable: string }>`
    select c.table_name, c.column_name, c.udt_name, c.is_nullable
    from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = ${storage.schema ?? "public"} and t.table_type = 'BASE TABLE'`.execute(storage.db);
  for (const c of info.rows) {
    if (kyselyTables.has(c.table_name)) continue;
    columns.set(`${c.table_name}.${c.column_name}`, {
      type: coarseType(c.udt_name),
      nullable: c.is_nullable === "YES",
    });
  }
  return columns;
}

describe("src/storage/schema.ts as read by the TypeScript compiler", () => {
  it("declares tables with columns of known types", () => {
    const declared = declaredSchema();
    expect(declared.get("charges.amount")).toEqual({ type: "integer", nullable: false });
    expect(declared.get("api_keys.revoked_at")).toEqual({ type: "text", nullable: true });
    // Generated<…> is unwrapped: a column the database fills is still its own type.
    expect(declared.get("events.seq")).toEqual({ type: "integer", nullable: false });
    for (const [column, shape] of declared) expect(["text", "integer"], column).toContain(shape.type);
  });
});

describe.each(dialects)("a fresh %s database, migrated", (dialect) => {
  let storage: Storage;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const database = freshDatabaseUrl(dialect);
    cleanup = database.cleanup;
    storage = await openStorage(database.url);
  });
  afterAll(async () => {
    await storage?.close();
    await cleanup?.();
  });

  it("has every table and column of src/storage/schema.ts, and no other", async () => {
    const declared = declaredSchema();
    const migrated = await migratedSchema(storage);
    const onlyDeclared = [...declared.keys()].filter((c) => !migrated.has(c)).sort();
    const onlyMigrated = [...migrated.keys()].filter((c) => !declared.has(c)).sort();
    expect({ onlyDeclared, onlyMigrated }).toEqual({ onlyDeclared: [], onlyMigrated: [] });
  });

  it("gives each column the type and nullability src/storage/schema.ts declares", async () => {
    const declared = declaredSchema();
    const migrated = await migratedSchema(storage);
    const differing = [...declared]
      .filter(([column]) => migrated.has(column))
      .map(([column, shape]) => ({ column, declared: shape, migrated: migrated.get(column) }))
      .filter((c) => c.declared.type !== c.migrated!.type || c.declared.nullable !== c.migrated!.nullable)
      .filter(
        (c) => !(dialectExceptions[`${dialect}:${c.column}`] === "nullable" && c.declared.type === c.migrated!.type),
      );
    expect(differing).toEqual([]);
  });
});
