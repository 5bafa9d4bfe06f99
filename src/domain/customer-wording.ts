import { ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { formatYen, type Wording } from "./display-format.js";
import { weekdayOf, type JstDate } from "./jst.js";

/**
 * How the customer app words failures and debit dates for the customer (docs/guide/customer-app.md):
 * Japanese first, English for the page's switch. Shared by the API and the page; the statuses, amounts
 * and times are display-format.ts's, the vocabulary every screen uses.
 */
export {
  chargeStatusWording,
  contractStatusWording,
  refundStatusWording,
  type Wording,
} from "./display-format.js";

/** Why a charge failed, as the customer is told (the ErrorType's customer-facing message). */
export const failureWording: Readonly<Record<ErrorType, Wording>> = Object.freeze({
  [ErrorType.UNSPECIFIED]: {
    ja: "引き落としができませんでした。お店にお問い合わせください。",
    en: "The debit did not go through. Please contact the shop.",
  },
  [ErrorType.PAYMENT_VALIDATION_FAILED]: {
    ja: "ご請求の内容に不備があったため、引き落としは行われませんでした。お店にお問い合わせください。",
    en: "The request had an error, so nothing was debited. Please contact the shop.",
  },
  [ErrorType.PAYMENT_GATEWAY_UNAVAILABLE]: {
    ja: "銀行と通信できなかったため、引き落としは行われませんでした。",
    en: "The bank could not be reached, so nothing was debited.",
  },
  [ErrorType.PAYMENT_GATEWAY_FAILED]: {
    ja: "銀行がこの引き落としを受け付けませんでした。",
    en: "The bank declined this debit.",
  },
  [ErrorType.PAYMENT_CHARGE_FAILED]: {
    ja: "引き落としができませんでした。お店にお問い合わせください。",
    en: "The debit did not go through. Please contact the shop.",
  },
  [ErrorType.PAYMENT_CHARGE_REJECTED]: {
    ja: "本人確認が完了していないため、引き落としできませんでした。",
    en: "Your identity check is not complete, so nothing was debited.",
  },
  [ErrorType.PAYMENT_CHARGE_OVER_LIMIT]: {
    ja: "金額が口座の利用限度額を超えたため、引き落としできませんでした。",
    en: "The amount was above your account's limit, so nothing was debited.",
  },
  [ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS]: {
    ja: "口座の残高が不足していたため、引き落としできませんでした。",
    en: "Your account balance was too low, so nothing was debited.",
  },
  [ErrorType.PAYMENT_LINK_EXPIRED]: {
    ja: "お支払いリンクの有効期限が切れていました。",
    en: "The payment link had expired.",
  },
  [ErrorType.PAYMENT_CUSTOMER_NOT_FOUND]: {
    ja: "お客様の登録が見つからなかったため、引き落としできませんでした。お店にお問い合わせください。",
    en: "Your registration was not found, so nothing was debited. Please contact the shop.",
  },
  [ErrorType.PAYMENT_CUSTOMER_INACTIVE]: {
    ja: "口座振替の登録が有効でないため、引き落としできませんでした。お店にお問い合わせください。",
    en: "Your direct-debit registration is not active, so nothing was debited. Please contact the shop.",
  },
});

const weekdaysJa = ["日", "月", "火", "水", "木", "金", "土"];
const weekdaysEn = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const monthsEn = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** A debit date (振替日, a JST date) as the customer reads it: 12月1日（火）, Tuesday 1 December 2026. */
export function debitDateWording(date: JstDate): Wording {
  const [year, month, day] = date.split("-").map(Number);
  const weekday = weekdayOf(date);
  return {
    ja: `${month}月${day}日（${weekdaysJa[weekday]}）`,
    en: `${weekdaysEn[weekday]} ${day} ${monthsEn[month - 1]} ${year}`,
  };
}

/**
 * What the customer is told of a charge debited on its debit date (docs/guide/hosted-page.md#when-the-account-is-debited):
 * the page's bank step, consent and outcome, the outcome e-mail and the customer app say it in these words,
 * the date always introduced as the 振替日 (振替日の12月1日（火）に, issue #31 finding 13).
 */
export function debitNoticeWording(date: JstDate, amount: number): Wording {
  const when = debitDateWording(date);
  const yen = formatYen(amount);
  return {
    ja: `振替日の${when.ja}に ${yen} を登録口座から引き落とします`,
    en: `${yen} will be debited from your registered account on the debit date, ${when.en}`,
  };
}
