import type { Compilable, CompiledQuery, Kysely } from "kysely";
import type { Database } from "./schema.js";

/**
 * Queries of the hot paths built and compiled by Kysely once per database, then run with their
 * values bound: building and compiling the same query on every call cost more than running it
 * (docs/operations/benchmark.md#per-request-work). The SQL text is the query builder's own, so
 * SQLite's statement cache and PostgreSQL see exactly what they saw before.
 *
 * A query is compiled with a slot (`slot("charge id")`) where each value goes; `bound` puts the
 * call's values in the slots' places. A slot may appear more than once (the same value each time);
 * a parameter that is no slot is a constant of the query (a status), the same on every call.
 */

/** A placeholder value a query is compiled with; no input text starts with NUL. */
export function slot(name: string): string {
  return `\u0000${name}`;
}

/**
 * Compiled queries by database: keyed by the executor's adapter, the one object a database's
 * connections and transactions share, which decides the SQL text (placeholders, quoting).
 */
const compiled = new WeakMap<object, Map<string, CompiledQuery>>();

/** The query of this `shape` for `db`'s database, compiled by `compile` the first time. */
export function compiledOnce<Row>(
  db: Kysely<Database>,
  shape: string,
  compile: () => CompiledQuery<Row>,
): CompiledQuery<Row> {
  const adapter = db.getExecutor().adapter;
  let queries = compiled.get(adapter);
  if (!queries) compiled.set(adapter, (queries = new Map()));
  let query = queries.get(shape);
  if (!query) queries.set(shape, (query = compile()));
  return query as CompiledQuery<Row>;
}

/** The compiled query with each slot replaced by the value given for it (keyed by the slot). */
export function bound<Row>(query: CompiledQuery<Row>, values: Record<string, unknown>): CompiledQuery<Row> {
  const parameters = query.parameters.map((parameter) => {
    if (typeof parameter !== "string" || !parameter.startsWith("\u0000")) return parameter;
    if (!(parameter in values)) throw new Error(`unbound parameter ${parameter.slice(1)} in ${query.sql}`);
    return values[parameter];
  });
  return { query: query.query, queryId: query.queryId, sql: query.sql, parameters };
}

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
  const query = compiledOnce(db, shape, () => build().compile());
  const bySlot: Record<string, unknown> = {};
  for (const name in values) bySlot[slot(name)] = values[name];
  return (await db.executeQuery<Row>(bound(query, bySlot))).rows;
}
