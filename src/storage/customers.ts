import { runCompiled, slot } from "./compiled-once.js";
import type { Kysely } from "kysely";
import { normalizeEmail } from "../domain/customer.js";
import type { CustomerRecord } from "../domain/records.js";
import type { Database } from "./schema.js";
import { customerFromRow, customerToRow } from "./records.js";
import type { Transactor, Tx } from "./transactor.js";

/** The merchant's live customer with this e-mail (compared trimmed and case-insensitively), locked for update. */
export async function lockCustomerByEmail(
  tx: Transactor,
  trx: Tx,
  merchantId: string,
  email: string,
): Promise<CustomerRecord | undefined> {
  const [row] = await runCompiled(
    trx,
    "customer by e-mail, locked",
    () =>
      tx.lockRows(
        trx
          .selectFrom("customers")
          .selectAll()
          .where("merchant_id", "=", slot("merchant"))
          .where("email_normalized", "=", slot("email"))
          .where("deleted_at", "is", null),
      ),
    { merchant: merchantId, email: normalizeEmail(email) },
  );
  return row && customerFromRow(row);
}

/** The merchant's live customer with this id, locked for update. */
export async function lockCustomer(
  tx: Transactor,
  trx: Tx,
  merchantId: string,
  id: string,
): Promise<CustomerRecord | undefined> {
  const row = await tx
    .lockRows(
      trx
        .selectFrom("customers")
        .selectAll()
        .where("id", "=", id)
        .where("merchant_id", "=", merchantId)
        .where("deleted_at", "is", null),
    )
    .executeTakeFirst();
  return row && customerFromRow(row);
}

export async function findCustomerById(db: Kysely<Database>, id: string): Promise<CustomerRecord | undefined> {
  const row = await db.selectFrom("customers").selectAll().where("id", "=", id).executeTakeFirst();
  return row && customerFromRow(row);
}

export async function insertCustomer(trx: Tx, customer: CustomerRecord): Promise<void> {
  await trx
    .insertInto("customers")
    .values({ ...customerToRow(customer), email_normalized: normalizeEmail(customer.email), deleted_at: null })
    .execute();
}

/** Writes every field of the record but the id, the merchant and the creation time. */
export async function saveCustomer(trx: Tx, customer: CustomerRecord): Promise<void> {
  const { id, merchant_id: merchantId, created_at: _createdAt, ...fields } = customerToRow(customer);
  await trx
    .updateTable("customers")
    .set({ ...fields, email_normalized: normalizeEmail(customer.email) })
    .where("id", "=", id)
    .where("merchant_id", "=", merchantId)
    .execute();
}
