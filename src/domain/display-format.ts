import { ChargeStatus, ContractStatus, RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import { jstDateOf, jstOffsetMs, type JstDate } from "./jst.js";

/**
 * How every screen and file a person reads writes amounts, times and statuses
 * (docs/guide/dashboard.md#japanese-and-english): the pay page, the dashboard,
 * the customer app, the e-mails and the charges export all call these, so ¥ and ￥, 2026/11/28 and
 * 2026年11月28日, 成功 and 引き落とし済み never meet on one customer's screens.
 */

/** Words in both of the pages' languages: Japanese first, English for the language switch. */
export type Wording = Readonly<{ ja: string; en: string }>;

/**
 * Whole yen, one symbol in both languages: ¥1,200 (half-width ¥, thousands separated; never the
 * full-width ￥ that Intl's ja-JP currency format writes).
 *
 * @example formatYen(1200) // "¥1,200"; formatYen(-500) // "-¥500"
 */
export function formatYen(amount: number | bigint): string {
  const value = Number(amount);
  const digits = Math.abs(value).toLocaleString("en-US", { maximumFractionDigits: 0 });
  return `${value < 0 ? "-" : ""}¥${digits}`;
}

/** An instant in Japan time, to the minute: 2026/11/28 08:42 (whatever the reader's own time zone). */
export function formatJstDateTime(at: Date): string {
  const jst = new Date(at.getTime() + jstOffsetMs).toISOString();
  return `${jst.slice(0, 10).replaceAll("-", "/")} ${jst.slice(11, 16)}`;
}

/** A JST calendar date (an instant's JST day, or a "YYYY-MM-DD" date): 2026/11/28. */
export function formatJstDate(date: Date | JstDate): string {
  return (typeof date === "string" ? date : jstDateOf(date)).replaceAll("-", "/");
}

/**
 * A charge's status, one vocabulary for staff and customers. PENDING is 処理中 only once the
 * customer finished the page: what the page never got past is 未完了 (chargeDisplayState).
 */
export const chargeStatusWording: Readonly<Record<ChargeStatus, Wording>> = Object.freeze({
  [ChargeStatus.UNSPECIFIED]: { ja: "不明", en: "Unknown" },
  [ChargeStatus.PENDING]: { ja: "処理中", en: "Processing" },
  [ChargeStatus.WAITING_EKYC]: { ja: "本人確認待ち", en: "Waiting for identity check" },
  [ChargeStatus.SUCCESS]: { ja: "成功", en: "Succeeded" },
  [ChargeStatus.FAILURE]: { ja: "失敗", en: "Failed" },
  [ChargeStatus.CANCELLED]: { ja: "取消済み", en: "Cancelled" },
  [ChargeStatus.REFUNDED]: { ja: "全額返金", en: "Refunded in full" },
});

export const refundStatusWording: Readonly<Record<RefundStatus, Wording>> = Object.freeze({
  [RefundStatus.UNSPECIFIED]: { ja: "不明", en: "Unknown" },
  [RefundStatus.PENDING]: { ja: "返金処理中", en: "Refund in progress" },
  [RefundStatus.SUCCEEDED]: { ja: "返金済み", en: "Refunded" },
  [RefundStatus.FAILED]: { ja: "返金失敗", en: "Refund failed" },
});

export const contractStatusWording: Readonly<Record<ContractStatus, Wording>> = Object.freeze({
  [ContractStatus.UNSPECIFIED]: { ja: "不明", en: "Unknown" },
  [ContractStatus.INITIAL]: { ja: "手続き中", en: "Being set up" },
  [ContractStatus.PENDING_CHARGE]: { ja: "初回引き落とし待ち", en: "Waiting for the first debit" },
  [ContractStatus.WAITING_EKYC]: { ja: "本人確認待ち", en: "Waiting for identity check" },
  [ContractStatus.APPROVED]: { ja: "承認済み", en: "Approved" },
  [ContractStatus.ACTIVATED]: { ja: "有効", en: "Active" },
  [ContractStatus.EXPIRED]: { ja: "期限切れ", en: "Expired" },
  [ContractStatus.DEACTIVATED]: { ja: "停止", en: "Stopped" },
  [ContractStatus.CANCELLED]: { ja: "解約済み", en: "Cancelled" },
});

/** What a screen needs of a charge to say its state in one word. */
export interface ChargeShown {
  readonly status: ChargeStatus;
  /** PENDING on a payment link the customer never finished (domain/charge.ts awaitingCustomer). */
  readonly awaitingCustomer: boolean;
  /** Refunded, pending refunds included. */
  readonly refundedAmount: number;
  /** Whether one of its refunds is still 返金処理中. */
  readonly refundPending: boolean;
}

/** The states a charge's status alone does not tell. */
export const chargeStateWording = Object.freeze({
  incomplete: { ja: "未完了", en: "Not completed" },
  refundPending: { ja: "返金処理中", en: "Refund in progress" },
  partlyRefunded: { ja: "一部返金", en: "Partly refunded" },
} satisfies Record<string, Wording>);

/**
 * A charge's state in one word, the same on every screen: 未完了 for a link the customer never
 * finished (not 処理中), 返金処理中 while a refund settles (not 成功), 一部返金 once part came back.
 */
export function chargeStateOf(charge: ChargeShown): Wording {
  if (charge.status === ChargeStatus.PENDING && charge.awaitingCustomer) return chargeStateWording.incomplete;
  if (charge.status === ChargeStatus.SUCCESS && charge.refundPending) return chargeStateWording.refundPending;
  if (charge.status === ChargeStatus.SUCCESS && charge.refundedAmount > 0) return chargeStateWording.partlyRefunded;
  return chargeStatusWording[charge.status];
}
