import type { Expression, ExpressionBuilder, SqlBool, StringReference } from "kysely";

/**
 * The keyset condition of a newest-first page: rows strictly after the cursor, the last row of the
 * previous page, in `order by time desc, tie desc` order. `tie` (an id or a sequence) breaks ties of
 * rows written in the same millisecond, so no row is skipped or shown twice across pages.
 */
export function olderThanCursor<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  columns: { time: StringReference<DB, TB>; tie: StringReference<DB, TB> },
  cursor: { time: string; tie: string | number },
): Expression<SqlBool> {
  // The columns are generic here, so their value types are too: the cursor's are checked by the callers' records.
  const time = cursor.time as never;
  return eb.or([
    eb(columns.time, "<", time),
    eb.and([eb(columns.time, "=", time), eb(columns.tie, "<", cursor.tie as never)]),
  ]);
}
