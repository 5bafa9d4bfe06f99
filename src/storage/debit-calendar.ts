import type { JstDate } from "../domain/jst.js";
import type { CarriedDebt, SubscriptionStatus } from "../domain/subscription.js";
import type { Tx } from "./transactor.js";

/** Alike subscriptions of a debit date (same plan, own price, periods), counted: what the calendar sums. */
export interface DebitCalendarGroup {
  planId: string;
  status: SubscriptionStatus;
  amount: number | null;
  startPeriod: string;
  endPeriod: string | null;
  nextPeriod: string | null;
  nextDebitDate: JstDate | null;
  /** 合算: what each subscription of the group carries into the debit (most groups carry nothing). */
  carry: CarriedDebt[];
  count: number;
}

/**
 * The merchant's charged subscriptions (active or past due: a past-due one's next period is still
 * debited) with a next debit from `from` to `to`, grouped in the
 * database so that 100,000 subscriptions on one date come back as a few rows. The amounts they
 * carry (合算) are part of the group: a subscription carrying one is in a group of its own, or of
 * those carrying the same.
 */
export async function debitCalendarGroups(
  db: Tx,
  merchantId: string,
  from: JstDate,
  to: JstDate,
): Promise<DebitCalendarGroup[]> {
  const rows = await db
    .selectFrom("subscriptions")
    .select((eb) => [
      "plan_id",
      "status",
      "amount",
      "start_period",
      "end_period",
      "next_period",
      "next_debit_date",
      "carry_json",
      eb.fn.countAll<number | string>().as("count"),
    ])
    .where("merchant_id", "=", merchantId)
    .where("status", "in", ["active", "past_due"])
    .where("next_debit_date", ">=", from)
    .where("next_debit_date", "<=", to)
    .groupBy([
      "next_debit_date",
      "plan_id",
      "status",
      "amount",
      "start_period",
      "end_period",
      "next_period",
      "carry_json",
    ])
    .execute();
  return rows.map((row) => ({
    planId: row.plan_id,
    status: row.status as SubscriptionStatus,
    amount: row.amount,
    startPeriod: row.start_period,
    endPeriod: row.end_period,
    nextPeriod: row.next_period,
    nextDebitDate: row.next_debit_date,
    carry: JSON.parse(row.carry_json),
    count: Number(row.count),
  }));
}
