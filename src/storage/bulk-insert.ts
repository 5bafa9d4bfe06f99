import { CompiledQuery, type Insertable, PostgresAdapter } from "kysely";
import type { Database } from "./schema.js";
import type { Tx } from "./transactor.js";

/** Rows per INSERT: well under both databases' limits on bound parameters. */
export const bulkInsertChunkRows = 200;

export interface BulkInsertOptions {
  /** `on conflict (…) do nothing`: a row whose key is already there is skipped. */
  readonly ignoreConflictOn?: readonly string[];
  /** Columns of the rows inserted to return (with `ignoreConflictOn`: only those not skipped). */
  readonly returning?: readonly string[];
}

/**
 * Many rows into one table, in chunks, each chunk one statement whose SQL text is built once per
 * shape (table, columns, rows, conflict rule) and whose values are bound in column order. Kysely
 * builds and compiles a multi-row insert value by value, which cost as much as running it on the
 * bulk paths (a debit date's subscriptions, a result file's events:
 * docs/operations/benchmark.md#debit-day). Every row has the same columns,
 * none undefined (a row mapper's output).
 */
export async function insertRows<T extends keyof Database & string>(
  trx: Tx,
  table: T,
  rows: readonly Insertable<Database[T]>[],
  options: BulkInsertOptions = {},
): Promise<Record<string, unknown>[]> {
  if (rows.length === 0) return [];
  const columns = Object.keys(rows[0]);
  const postgres = trx.getExecutor().adapter instanceof PostgresAdapter;
  const returned: Record<string, unknown>[] = [];
  for (let start = 0; start < rows.length; start += bulkInsertChunkRows) {
    const chunk = rows.slice(start, start + bulkInsertChunkRows);
    const values: unknown[] = [];
    for (const row of chunk) {
      const record = row as Record<string, unknown>;
      for (const column of columns) {
        const value = record[column];
        if (value === undefined) throw new Error(`insertRows(${table}): ${column} is undefined`);
        values.push(value);
      }
      if (Object.keys(record).length !== columns.length)
        throw new Error(`insertRows(${table}): rows differ in columns`);
    }
    const text = insertSql(table, columns, chunk.length, options, postgres);
    const result = await trx.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, values));
    if (options.returning) returned.push(...result.rows);
  }
  return returned;
}

const insertSqlCache = new Map<string, string>();

/** `insert into table (columns) values (…), … [on conflict … do nothing] [returning …]`, built once per shape. */
function insertSql(
  table: string,
  columns: readonly string[],
  rows: number,
  { ignoreConflictOn, returning }: BulkInsertOptions,
  postgres: boolean,
): string {
  const key = `${postgres}|${table}(${columns.join()})×${rows}|${ignoreConflictOn?.join() ?? ""}|${returning?.join() ?? ""}`;
  let text = insertSqlCache.get(key);
  if (text) return text;
  const quoted = (names: readonly string[]) => names.map((name) => `"${name}"`).join(", ");
  let n = 0;
  const placeholder = postgres ? () => `$${++n}` : () => "?";
  const tuples = Array.from({ length: rows }, () => `(${columns.map(placeholder).join(", ")})`);
  text = `insert into "${table}" (${quoted(columns)}) values ${tuples.join(", ")}`;
  if (ignoreConflictOn) text += ` on conflict (${quoted(ignoreConflictOn)}) do nothing`;
  if (returning) text += ` returning ${quoted(returning)}`;
  insertSqlCache.set(key, text);
  return text;
}
