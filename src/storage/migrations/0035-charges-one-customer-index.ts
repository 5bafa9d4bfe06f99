import type { Kysely } from "kysely";

/**
 * A charge row carried two indexes leading with its customer: 0001's (merchant, customer, created)
 * and 0022's (customer, created, id). A customer belongs to one merchant, so the second answers
 * every query of the first (a customer's charges, newest first, with the id as tie-breaker) and
 * one index entry less is written per charge, on the API's creates and a debit date's thousands.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("charges_merchant_customer").execute();
}
