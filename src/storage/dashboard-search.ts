import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from "kysely";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import type { Cursor } from "../domain/page-token.js";
import type { ChargeRecord, CustomerRecord } from "../domain/records.js";
import { chargeFromRow, customerFromRow } from "./records.js";
import type { Database } from "./schema.js";

/** The dashboard's searches (docs/guide/dashboard.md#finding-things), each scoped to one merchant, newest first. */

/** A LIKE pattern that matches `text` literally (with `\` as the escape character). */
function literal(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

function like(column: Expression<string>, pattern: string): Expression<SqlBool> {
  return sql<SqlBool>`${column} like ${pattern} escape '\\'`;
}

/** Newest first: the rows after (created_at, id) of the previous page's last row. */
function before(after: Cursor): Expression<SqlBool> {
  return sql<SqlBool>`(created_at < ${after.createdAt} or (created_at = ${after.createdAt} and id < ${after.id}))`;
}

export interface CustomerSearch {
  /** The start of email_normalized. */
  emailPrefix?: string;
  /** Part of the lower-cased name (nameKey), or of the kana with its space removed (kanaKey). */
  name?: string;
  kana?: string;
  limit: number;
  after?: Cursor;
}

export async function searchCustomersOfMerchant(
  db: Kysely<Database>,
  merchantId: string,
  search: CustomerSearch,
): Promise<CustomerRecord[]> {
  let query = db
    .selectFrom("customers")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .where("deleted_at", "is", null);
  const { emailPrefix, name, kana, after } = search;
  if (emailPrefix) query = query.where((eb) => like(eb.ref("email_normalized"), `${literal(emailPrefix)}%`));
  if (name || kana)
    query = query.where((eb) =>
      eb.or([
        ...(name ? [like(sql<string>`lower(${eb.ref("name")})`, `%${literal(name)}%`)] : []),
        ...(kana
          ? [
              like(
                sql<string>`replace(${eb.ref("katakana_last_name")} || ${eb.ref("katakana_first_name")}, ' ', '')`,
                `%${literal(kana)}%`,
              ),
            ]
          : []),
      ]),
    );
  if (after) query = query.where(before(after));
  const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc").limit(search.limit).execute();
  return rows.map(customerFromRow);
}

export interface ChargeSearch {
  customerId?: string;
  statuses?: number[];
  /** ISO times: created at or after, and before. */
  createdFrom?: string;
  createdBefore?: string;
  minAmount?: number;
  maxAmount?: number;
  /** The start of the customer's email_normalized. */
  customerEmailPrefix?: string;
}

/**
 * The status filter as the list shows the charges (docs/guide/dashboard.md#finding-things):
 * 全額返金 (REFUNDED) finds a charge as soon as its accepted refunds, settling or settled, cover its
 * amount (it reads 返金処理中 until the bank settles them), not only once the status turned REFUNDED;
 * 成功 (SUCCESS) no longer finds such a charge, so each charge is under one status filter.
 */
function statusFilter(eb: ExpressionBuilder<Database, "charges">, statuses: number[]): Expression<SqlBool> {
  const covered = sql<SqlBool>`refunded_amount + pending_refund_amount >= amount`;
  const plain = statuses.filter((s) => s !== ChargeStatus.SUCCESS && s !== ChargeStatus.REFUNDED);
  const either: Expression<SqlBool>[] = [];
  if (plain.length) either.push(eb("status", "in", plain));
  if (statuses.includes(ChargeStatus.REFUNDED))
    either.push(
      eb.or([eb("status", "=", ChargeStatus.REFUNDED), eb.and([eb("status", "=", ChargeStatus.SUCCESS), covered])]),
    );
  if (statuses.includes(ChargeStatus.SUCCESS))
    either.push(eb.and([eb("status", "=", ChargeStatus.SUCCESS), eb.not(covered)]));
  return eb.or(either);
}

export async function searchChargesOfMerchant(
  db: Kysely<Database>,
  merchantId: string,
  search: ChargeSearch & { limit: number; after?: Cursor },
): Promise<ChargeRecord[]> {
  let query = db.selectFrom("charges").selectAll().where("merchant_id", "=", merchantId);
  if (search.customerId) query = query.where("customer_id", "=", search.customerId);
  const statuses = search.statuses;
  if (statuses?.length) query = query.where((eb) => statusFilter(eb, statuses));
  if (search.createdFrom) query = query.where("created_at", ">=", search.createdFrom);
  if (search.createdBefore) query = query.where("created_at", "<", search.createdBefore);
  if (search.minAmount) query = query.where("amount", ">=", search.minAmount);
  if (search.maxAmount) query = query.where("amount", "<=", search.maxAmount);
  const emailPrefix = search.customerEmailPrefix;
  if (emailPrefix)
    query = query.where("customer_id", "in", (eb) =>
      eb
        .selectFrom("customers")
        .select("id")
        .where("merchant_id", "=", merchantId)
        .where((inner) => like(inner.ref("email_normalized"), `${literal(emailPrefix)}%`)),
    );
  const after = search.after;
  if (after) query = query.where(before(after));
  const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc").limit(search.limit).execute();
  return rows.map(chargeFromRow);
}

export interface PayerRow {
  customerId: string;
  email: string;
  name: string;
  kana: string;
  /** The newest mandate's masked account display; "" without one. */
  maskedAccount: string;
}

/** Who the given customers are, with the masked account of each one's newest mandate. */
export async function payersOf(db: Kysely<Database>, merchantId: string, customerIds: string[]): Promise<PayerRow[]> {
  const ids = [...new Set(customerIds)];
  if (ids.length === 0) return [];
  // By id and by customer alone, the merchant checked on the rows found
  // (docs/operations/benchmark.md#history-independence).
  const [found, ofCustomers] = await Promise.all([
    db
      .selectFrom("customers")
      .select(["id", "merchant_id", "email", "name", "katakana_last_name", "katakana_first_name"])
      .where("id", "in", ids)
      .execute(),
    db
      .selectFrom("mandates")
      .select(["merchant_id", "customer_id", "summary_json"])
      .where("customer_id", "in", ids)
      .orderBy("customer_id")
      .orderBy("accepted_at")
      .execute(),
  ]);
  const customers = found.filter((row) => row.merchant_id === merchantId);
  const mandates = ofCustomers.filter((row) => row.merchant_id === merchantId);
  // Oldest first, so the newest mandate of each customer is the one left in the map.
  const accounts = new Map(
    mandates.map((m) => [m.customer_id, String((JSON.parse(m.summary_json) as { display?: string }).display ?? "")]),
  );
  return customers.map((c) => ({
    customerId: c.id,
    email: c.email,
    name: c.name,
    kana: [c.katakana_last_name, c.katakana_first_name].filter(Boolean).join(" "),
    maskedAccount: accounts.get(c.id) ?? "",
  }));
}
