import { type CompiledQuery, type Kysely, sql } from "kysely";
import type { ChargeRecord, RefundRecord } from "../domain/records.js";
import type { Database } from "./schema.js";
import { chargeFromRow, refundFromRow } from "./records.js";

/**
 * GetCharge's reads, each built and compiled by Kysely once per database and then run with its
 * values bound: building and compiling the same two queries on every call cost more than running
 * them (docs/operations/benchmark.md#per-request-work). The SQL text is the query builder's own,
 * so SQLite's statement cache and PostgreSQL see exactly what they saw before.
 */

/** Placeholder values the queries are compiled with; each is replaced by its value when run. */
const chargeIdSlot = "\u0000charge id";
const merchantIdSlot = "\u0000merchant id";

/** A merchant's charge by id: another merchant's id reads exactly like a missing one. */
export async function findCharge(
  db: Kysely<Database>,
  merchantId: string,
  id: string,
): Promise<ChargeRecord | undefined> {
  const query = compiledOnce(db, "charge", () =>
    db
      .selectFrom("charges")
      .selectAll()
      .where("id", "=", chargeIdSlot)
      .where("merchant_id", "=", merchantIdSlot)
      .compile(),
  );
  const { rows } = await db.executeQuery(bound(query, { [chargeIdSlot]: id, [merchantIdSlot]: merchantId }));
  return rows[0] && chargeFromRow(rows[0]);
}

/**
 * A charge's newest refunds, newest first, at most `limit`. The limit is a literal in the text
 * (a whole number, never input text): see `refundsOfCharge` in status-queries.ts for why.
 */
export async function newestRefundsOfCharge(
  db: Kysely<Database>,
  chargeId: string,
  limit: number,
): Promise<RefundRecord[]> {
  const whole = Math.trunc(limit);
  const query = compiledOnce(db, `refunds ${whole}`, () =>
    db
      .selectFrom("refunds")
      .selectAll()
      .where("charge_id", "=", chargeIdSlot)
      .orderBy("seq", "desc")
      .limit(sql.lit(whole))
      .compile(),
  );
  const { rows } = await db.executeQuery(bound(query, { [chargeIdSlot]: chargeId }));
  return rows.map(refundFromRow);
}

/**
 * Compiled queries by database: keyed by the executor's adapter, the one object a database's
 * connections and transactions share, which decides the SQL text (placeholders, quoting).
 */
const compiled = new WeakMap<object, Map<string, CompiledQuery>>();

function compiledOnce<Row>(db: Kysely<Database>, shape: string, compile: () => CompiledQuery<Row>): CompiledQuery<Row> {
  const adapter = db.getExecutor().adapter;
  let queries = compiled.get(adapter);
  if (!queries) compiled.set(adapter, (queries = new Map()));
  let query = queries.get(shape);
  if (!query) queries.set(shape, (query = compile()));
  return query as CompiledQuery<Row>;
}

/** The compiled query with each placeholder value replaced by the value given for it. */
function bound<Row>(query: CompiledQuery<Row>, values: Record<string, unknown>): CompiledQuery<Row> {
  const parameters = query.parameters.map((slot) => {
    if (typeof slot !== "string" || !(slot in values)) throw new Error(`unbound parameter in ${query.sql}`);
    return values[slot];
  });
  return { ...query, parameters };
}
