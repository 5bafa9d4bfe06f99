import type { Compilable, CompiledQuery, Kysely } from "kysely";
import type { Database } from "./schema.js";

/**
 * Queries of the hot paths built and compiled by Kysely once per database, then run with their
 * values bound: building and compiling the same query on every call cost more than running it
 * (docs/operations/benchmark.md#per-request-work). The SQL text is the query builder's own, so
 * SQLite's statement cache and PostgreSQL see exactly what they saw before.
 *
 * A query is built with a slot (`slot("charge")`) where each value goes; `runCompiled` puts the
 * call's values in the slots' places. A slot may appear more than once (the same value each time);
 * a parameter that is no slot is a constant of the query (a status), the same on every call.
 */

/** A placeholder value a query is built with; no input text starts with NUL. */
export function slot(name: string): string {
  return `\u0000${name}`;
}

/**
 * Compiled queries by database: keyed by the executor's adapter, the one object a database's
 * connections and transactions share, which decides the SQL text (placeholders, quoting).
 */
const compiled = new WeakMap<object, Map<string, CompiledQuery>>();

/**
 * Runs the query `build` makes, compiled the first time `shape` is run on this database, with
 * each `slot(name)` bound to `values[name]`. `shape` names the query's text: one shape, one text.
 */
export async function runCompiled<Row>(
  db: Kysely<Database>,
  shape: string,
  build: () => Compilable<Row>,
  values: Record<string, unknown>,
): Promise<Row[]> {
  const adapter = db.getExecutor().adapter;
  let queries = compiled.get(adapter);
  if (!queries) compiled.set(adapter, (queries = new Map()));
  let query = queries.get(shape) as CompiledQuery<Row> | undefined;
  if (!query) queries.set(shape, (query = build().compile()));
  const sql = query.sql;
  const parameters = query.parameters.map((parameter) => {
    if (typeof parameter !== "string" || !parameter.startsWith("\u0000")) return parameter;
    const name = parameter.slice(1);
    if (!(name in values)) throw new Error(`unbound parameter ${name} in ${sql}`);
    return values[name];
  });
  return (await db.executeQuery<Row>({ ...query, parameters })).rows;
}
