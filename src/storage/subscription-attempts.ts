import { limits } from "../domain/limits.js";
import type { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import type { SubscriptionAttemptRecord } from "../domain/subscription.js";
import { insertRows } from "./bulk-insert.js";
import type { Tx } from "./transactor.js";

/** The attempts the charges are, by charge id (a charge not of a subscription has none). */
export async function findAttemptsOfCharges(
  db: Tx,
  chargeIds: readonly string[],
): Promise<Map<string, Omit<SubscriptionAttemptRecord, "chargeStatus">>> {
  const attempts = new Map<string, Omit<SubscriptionAttemptRecord, "chargeStatus">>();
  for (let start = 0; start < chargeIds.length; start += limits.sqlInListIds) {
    const rows = await db
      .selectFrom("subscription_attempts")
      .selectAll()
      .where("charge_id", "in", chargeIds.slice(start, start + limits.sqlInListIds))
      .execute();
    for (const row of rows)
      attempts.set(row.charge_id, {
        subscriptionId: row.subscription_id,
        period: row.period,
        attempt: row.attempt,
        chargeId: row.charge_id,
        debitDate: row.debit_date,
        createdAt: new Date(row.created_at),
      });
  }
  return attempts;
}

/** Re-debits: attempts n ≥ 2 of their periods (the primary key keeps one per attempt number). */
export async function insertAttempts(
  trx: Tx,
  attempts: readonly Omit<SubscriptionAttemptRecord, "chargeStatus">[],
): Promise<void> {
  await insertRows(
    trx,
    "subscription_attempts",
    attempts.map((attempt) => ({
      subscription_id: attempt.subscriptionId,
      period: attempt.period,
      attempt: attempt.attempt,
      charge_id: attempt.chargeId,
      debit_date: attempt.debitDate,
      created_at: attempt.createdAt.toISOString(),
    })),
  );
}

/** A period's attempts, oldest first, with their charges' statuses. */
export async function attemptsOfPeriod(
  db: Tx,
  subscriptionId: string,
  period: string,
): Promise<SubscriptionAttemptRecord[]> {
  const rows = await db
    .selectFrom("subscription_attempts")
    .innerJoin("charges", "charges.id", "subscription_attempts.charge_id")
    .select([
      "subscription_attempts.subscription_id",
      "subscription_attempts.period",
      "subscription_attempts.attempt",
      "subscription_attempts.charge_id",
      "subscription_attempts.debit_date",
      "subscription_attempts.created_at",
      "charges.status",
    ])
    .where("subscription_attempts.subscription_id", "=", subscriptionId)
    .where("subscription_attempts.period", "=", period)
    .orderBy("subscription_attempts.attempt")
    .execute();
  return rows.map((row) => ({
    subscriptionId: row.subscription_id,
    period: row.period,
    attempt: row.attempt,
    chargeId: row.charge_id,
    debitDate: row.debit_date,
    chargeStatus: row.status as ChargeStatus,
    createdAt: new Date(row.created_at),
  }));
}
