import type { Kysely } from "kysely";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { normalizeEmail } from "../domain/customer.js";
import type { Cursor } from "../domain/page-token.js";
import type { ChargeRecord, ContractRecord } from "../domain/records.js";
import { chargeFromRow, contractFromRow } from "./records.js";
import type { Database } from "./schema.js";
import { olderThanCursor } from "./keyset-cursor.js";

/**
 * The customer app's reads: a customer's records across merchants, found by the e-mail their
 * sign-in proved (customers are per merchant; the e-mail joins them). Every read is scoped to the
 * customer ids of that e-mail, so a guessed charge or contract id of another e-mail finds nothing.
 * And only the customer's own acts (docs/guide/customer-app.md#what-the-customer-sees): a contract
 * they approved with an account, a charge on an account they approved (`bank_account_id` set, at
 * approval); a link a merchant created and nobody approved writes nothing into their history.
 */

export interface CustomerOfEmail {
  id: string;
  merchantId: string;
}

/** The live customers with this e-mail, one per merchant at most, oldest first. */
export async function customersOfEmail(db: Kysely<Database>, email: string): Promise<CustomerOfEmail[]> {
  return db
    .selectFrom("customers")
    .select(["id", "merchant_id as merchantId"])
    .where("email_normalized", "=", normalizeEmail(email))
    .where("deleted_at", "is", null)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
}

export interface MerchantContact {
  id: string;
  name: string;
  logoUrl: string;
  supportEmail: string;
  supportPhone: string;
  supportUrl: string;
}

/** What a customer may see of these merchants: name, logo and support contact. */
export async function merchantContacts(
  db: Kysely<Database>,
  merchantIds: readonly string[],
): Promise<Map<string, MerchantContact>> {
  if (merchantIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("merchants")
    .select([
      "id",
      "name",
      "logo_url as logoUrl",
      "support_email as supportEmail",
      "support_phone as supportPhone",
      "support_url as supportUrl",
    ])
    .where("id", "in", [...merchantIds])
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}

/** The contracts of these customers, newest first (a customer has a few: sorted here, not by the database). */
export async function contractsOfCustomers(
  db: Kysely<Database>,
  customerIds: readonly string[],
): Promise<ContractRecord[]> {
  if (customerIds.length === 0) return [];
  const rows = await db
    .selectFrom("contracts")
    .selectAll()
    .where("customer_id", "in", [...customerIds])
    .where("bank_account_id", "is not", null)
    .execute();
  return rows.map(contractFromRow).sort(newestFirst);
}

/** One contract, only if it belongs to one of these customers. */
export async function findContractOfCustomers(
  db: Kysely<Database>,
  contractId: string,
  customerIds: readonly string[],
): Promise<ContractRecord | undefined> {
  if (customerIds.length === 0) return undefined;
  const row = await db
    .selectFrom("contracts")
    .selectAll()
    .where("id", "=", contractId)
    .where("customer_id", "in", [...customerIds])
    .where("bank_account_id", "is not", null)
    .executeTakeFirst();
  return row && contractFromRow(row);
}

/** One charge, only if it belongs to one of these customers. */
export async function findChargeOfCustomers(
  db: Kysely<Database>,
  chargeId: string,
  customerIds: readonly string[],
): Promise<ChargeRecord | undefined> {
  if (customerIds.length === 0) return undefined;
  const row = await db
    .selectFrom("charges")
    .selectAll()
    .where("id", "=", chargeId)
    .where("customer_id", "in", [...customerIds])
    .where("bank_account_id", "is not", null)
    .executeTakeFirst();
  return row && chargeFromRow(row);
}

type ChargePage = { limit: number; after?: Cursor; from?: Date; to?: Date };

/**
 * The customers' charges, newest first, after the cursor's (created_at, id); within [from, to) when
 * given. One walk of the (customer_id, created_at, id) index per customer (an e-mail has one
 * customer per merchant), merged here: no query reads more than a page, nor sorts.
 */
export async function chargesOfCustomers(
  db: Kysely<Database>,
  customerIds: readonly string[],
  options: ChargePage,
): Promise<ChargeRecord[]> {
  const pages = await Promise.all(customerIds.map((id) => chargesOfCustomer(db, id, options)));
  return pages.flat().sort(newestFirst).slice(0, options.limit);
}

async function chargesOfCustomer(db: Kysely<Database>, customerId: string, options: ChargePage) {
  let query = db
    .selectFrom("charges")
    .selectAll()
    .where("customer_id", "=", customerId)
    .where("bank_account_id", "is not", null);
  if (options.from) query = query.where("created_at", ">=", options.from.toISOString());
  if (options.to) query = query.where("created_at", "<", options.to.toISOString());
  const after = options.after;
  if (after) {
    query = query.where((eb) =>
      olderThanCursor(eb, { time: "created_at", tie: "id" }, { time: after.createdAt, tie: after.id }),
    );
  }
  const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc").limit(options.limit).execute();
  return rows.map(chargeFromRow);
}

/** Those of these customers with a charge on an account they approved (one index walk each, stopping at the first). */
export async function customersWithCharges(db: Kysely<Database>, customerIds: readonly string[]): Promise<Set<string>> {
  const found = await Promise.all(
    customerIds.map((id) =>
      db
        .selectFrom("charges")
        .select("customer_id")
        .where("customer_id", "=", id)
        .where("bank_account_id", "is not", null)
        .limit(1)
        .executeTakeFirst(),
    ),
  );
  return new Set(found.flatMap((row) => (row?.customer_id ? [row.customer_id] : [])));
}

/** Newest first, then by id descending: the keyset order of every list here. */
function newestFirst(a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }): number {
  return b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** A charge accepted for a debit date (振替日, YYYY-MM-DD JST) and not yet answered. */
export interface UpcomingDebitRecord {
  charge: ChargeRecord;
  debitDate: string;
}

/**
 * The customers' charges waiting for their debit date: PENDING, their Zengin debit scheduled or
 * in a request file whose result has not come; soonest first, at most `limit` (each customer's
 * earliest accepted, walked in its charges' index). None under the simulated connector (it books
 * at once, and schedules nothing).
 */
export async function upcomingDebitsOfCustomers(
  db: Kysely<Database>,
  customerIds: readonly string[],
  limit: number,
): Promise<UpcomingDebitRecord[]> {
  const pages = await Promise.all(customerIds.map((id) => upcomingDebitsOfCustomer(db, id, limit)));
  return pages
    .flat()
    .sort((a, b) => a.debitDate.localeCompare(b.debitDate) || a.charge.id.localeCompare(b.charge.id))
    .slice(0, limit);
}

async function upcomingDebitsOfCustomer(db: Kysely<Database>, customerId: string, limit: number) {
  const rows = await db
    .selectFrom("charges")
    .innerJoin("zengin_debits", "zengin_debits.reference", "charges.id")
    .selectAll("charges")
    .select("zengin_debits.date as debit_date")
    .where("charges.customer_id", "=", customerId)
    .where("charges.status", "=", ChargeStatus.PENDING)
    .where("zengin_debits.state", "in", ["scheduled", "filed"])
    .where("zengin_debits.date", "is not", null)
    .orderBy("charges.created_at")
    .orderBy("charges.id")
    .limit(limit)
    .execute();
  return rows.map(({ debit_date, ...row }) => ({ charge: chargeFromRow(row), debitDate: debit_date ?? "" }));
}

/** The debit dates of those of the charges whose Zengin debit was scheduled (and not cancelled). */
export async function debitDatesOfCharges(
  db: Kysely<Database>,
  chargeIds: readonly string[],
): Promise<Map<string, string>> {
  if (chargeIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("zengin_debits")
    .select(["reference", "date"])
    .where("reference", "in", [...chargeIds])
    .where("state", "!=", "cancelled")
    .execute();
  return new Map(rows.flatMap((row) => (row.date ? [[row.reference, row.date] as const] : [])));
}

/** The states of these charges, by id (a subscription's periods' outcomes). */
export async function chargeStatusesOf(
  db: Kysely<Database>,
  chargeIds: readonly string[],
): Promise<Map<string, ChargeStatus>> {
  if (chargeIds.length === 0) return new Map();
  const rows = await db.selectFrom("charges").select(["id", "status"]).where("id", "in", chargeIds).execute();
  return new Map(rows.map((row) => [row.id, row.status as ChargeStatus]));
}
