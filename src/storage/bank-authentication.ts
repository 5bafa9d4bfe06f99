import { sql } from "kysely";
import { keyedHash, keyedHashes } from "./sealed.js";
import type { Tx } from "./transactor.js";

// The counters are kept under a keyed hash of the account (bank-branch-number), never the numbers
// themselves (docs/reference/security.md#bank-accounts).

/** Wrong entries recorded for an account on a JST day (under the current key and, during a key rotation, the previous ones). */
export async function wrongEntries(db: Tx, accountKey: string, day: string): Promise<number> {
  const row = await db
    .selectFrom("bank_authentication_failures")
    .select(sql<number>`coalesce(sum(failures), 0)`.as("failures"))
    .where("account_key", "in", keyedHashes(accountKey))
    .where("day", "=", day)
    .executeTakeFirstOrThrow();
  return Number(row.failures);
}

export async function recordWrongEntry(trx: Tx, accountKey: string, day: string): Promise<void> {
  await trx
    .insertInto("bank_authentication_failures")
    .values({ account_key: keyedHash(accountKey), day, failures: 1 })
    .onConflict((oc) =>
      oc
        .columns(["account_key", "day"])
        .doUpdateSet((eb) => ({ failures: eb("bank_authentication_failures.failures", "+", 1) })),
    )
    .execute();
}
