import type { Tx } from "./transactor.js";

/** Wrong entries recorded for an account on a JST day. */
export async function wrongEntries(db: Tx, accountKey: string, day: string): Promise<number> {
  const row = await db
    .selectFrom("bank_authentication_failures")
    .select("failures")
    .where("account_key", "=", accountKey)
    .where("day", "=", day)
    .executeTakeFirst();
  return row ? Number(row.failures) : 0;
}

export async function recordWrongEntry(trx: Tx, accountKey: string, day: string): Promise<void> {
  await trx
    .insertInto("bank_authentication_failures")
    .values({ account_key: accountKey, day, failures: 1 })
    .onConflict((oc) =>
      oc
        .columns(["account_key", "day"])
        .doUpdateSet((eb) => ({ failures: eb("bank_authentication_failures.failures", "+", 1) })),
    )
    .execute();
}
