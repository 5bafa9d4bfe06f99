import { sql, type Kysely } from "kysely";
import type { DialectName } from "../../src/storage/database.js";

/**
 * Makes the database refuse inserts of charges for one customer (a simulated outage, on either
 * database) until the returned function ends it.
 */
export async function refuseChargesOf(
  storage: { db: Kysely<any>; dialect: DialectName },
  customerId: string,
): Promise<() => Promise<void>> {
  const { db, dialect } = storage;
  if (dialect === "sqlite") {
    await sql
      .raw(
        `create trigger charge_outage before insert on charges when new.customer_id = '${customerId}' begin select raise(abort, 'simulated outage'); end`,
      )
      .execute(db);
    return async () => void (await sql`drop trigger charge_outage`.execute(db));
  }
  await sql
    .raw(
      `create function charge_outage() returns trigger language plpgsql as $$ begin raise exception 'simulated outage'; end $$`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger charge_outage before insert on charges for each row when (new.customer_id = '${customerId}') execute function charge_outage()`,
    )
    .execute(db);
  return async () => {
    await sql`drop trigger charge_outage on charges`.execute(db);
    await sql`drop function charge_outage()`.execute(db);
  };
}
