import type { JstDate } from "../domain/jst.js";
import type { Tx } from "./transactor.js";

/** A subscription whose next period has no 振替予定のお知らせ queued yet. */
export interface NoticeCandidate {
  subscriptionId: string;
  merchantId: string;
  period: string;
  debitDate: JstDate;
  noticeDays: number;
}

/** Where a page of notice candidates ends: the next page starts after this debit date and id. */
export interface NoticeCursor {
  debitDate: JstDate | "";
  subscriptionId: string;
}

/**
 * A page (in debit date and id order, after `after`) of charged subscriptions (active or past due:
 * never paused or final) debited by `horizon` whose plan sends notices and whose next period has
 * none queued. The order is that of the subscriptions_by_debit_date index (migration 0031).
 */
export async function noticeCandidates(
  db: Tx,
  horizon: JstDate,
  after: NoticeCursor,
  limit: number,
): Promise<NoticeCandidate[]> {
  const rows = await db
    .selectFrom("subscriptions")
    .innerJoin("plans", "plans.id", "subscriptions.plan_id")
    .leftJoin("subscription_notices", (join) =>
      join
        .onRef("subscription_notices.subscription_id", "=", "subscriptions.id")
        .onRef("subscription_notices.period", "=", "subscriptions.next_period"),
    )
    .select([
      "subscriptions.id",
      "subscriptions.merchant_id",
      "subscriptions.next_period",
      "subscriptions.next_debit_date",
      "plans.notice_days",
    ])
    .where("subscriptions.status", "in", ["active", "past_due"])
    .where("subscriptions.next_debit_date", "<=", horizon)
    .where(({ eb, refTuple, tuple }) =>
      eb(
        refTuple("subscriptions.next_debit_date", "subscriptions.id"),
        ">",
        tuple(after.debitDate, after.subscriptionId),
      ),
    )
    .where("plans.notice_days", ">", 0)
    .where("subscription_notices.subscription_id", "is", null)
    .orderBy("subscriptions.next_debit_date")
    .orderBy("subscriptions.id")
    .limit(limit)
    .execute();
  return rows.flatMap((row) =>
    row.next_period && row.next_debit_date
      ? [
          {
            subscriptionId: row.id,
            merchantId: row.merchant_id,
            period: row.next_period,
            debitDate: row.next_debit_date,
            noticeDays: row.notice_days,
          },
        ]
      : [],
  );
}

/** Records notices once each (insert-or-ignore on subscription and period): those this call inserted. */
export async function insertNotices(
  trx: Tx,
  notices: readonly { subscriptionId: string; period: string }[],
  now: Date,
): Promise<{ subscriptionId: string; period: string }[]> {
  if (notices.length === 0) return [];
  const rows = await trx
    .insertInto("subscription_notices")
    .values(
      notices.map((notice) => ({
        subscription_id: notice.subscriptionId,
        period: notice.period,
        created_at: now.toISOString(),
      })),
    )
    .onConflict((oc) => oc.columns(["subscription_id", "period"]).doNothing())
    .returning(["subscription_id", "period"])
    .execute();
  return rows.map((row) => ({ subscriptionId: row.subscription_id, period: row.period }));
}
