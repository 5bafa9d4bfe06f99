import type { Compilable, CompiledQuery, Kysely } from "kysely";
import type { Database } from "./schema.js";

/**
 * The hot path's single-row reads, each built and compiled by Kysely once per database and then
 * run with its values bound: building and compiling a query on every call cost more than SQLite
 * running it (docs/operations/benchmark.md#per-request-work). The SQL text is the query
 * builder's own, so SQLite's statement cache and PostgreSQL see what they saw before. (GetCharge's
 * reads in charge-reads.ts follow the same pattern.)
 */

/** The placeholder a query is compiled with for the value named; replaced by the value when run. */
export function slot(name: string): string {
  return `\u0000${name}`;
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
  // Keyed by the executor's adapter, which decides the SQL text and which a database's
  // connections and transactions share.
  const adapter = db.getExecutor().adapter;
  let queries = compiled.get(adapter);
  if (!queries) compiled.set(adapter, (queries = new Map()));
  let query = queries.get(shape) as CompiledQuery<Row> | undefined;
  if (!query) queries.set(shape, (query = build().compile()));
  // A parameter that is no slot is a constant of the query (a status), the same on every call.
  const parameters = query.parameters.map((parameter) => {
    if (typeof parameter !== "string" || !parameter.startsWith("\u0000")) return parameter;
    const name = parameter.slice(1);
    if (!(name in values)) throw new Error(`unbound parameter ${name} in ${query.sql}`);
    return values[name];
  });
  return (await db.executeQuery<Row>({ ...query, parameters })).rows;
}

const compiled = new WeakMap<object, Map<string, CompiledQuery>>();
