import type { ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { errorTypeMessagesJa } from "./payment-failure.js";
import { formatJstDate, formatYen } from "./display-format.js";
import { addDays, type JstDate } from "./jst.js";

/** A plan's 振替予定のお知らせ, unless it says otherwise: three days before each debit date. */
export const defaultNoticeDays = 3;

/**
 * The e-mail to the customer after a subscription's debit failed
 * (docs/guide/recurring-billing.md#re-debits-and-dunning): the amount, the reason, and the
 * re-debit's date when one is scheduled, that it is added to the next debit (合算), else that the
 * merchant will be in touch.
 */
export function debitFailureMessage(input: {
  merchantName: string;
  description: string;
  period: string;
  amount: number;
  debitDate: JstDate;
  errorType: ErrorType;
  retryDebitDate?: JstDate;
  carriedOver?: boolean;
}): { subject: string; body: string } {
  const { merchantName } = input;
  const next = input.retryDebitDate
    ? `${formatJstDate(input.retryDebitDate)}に同じ金額を再度振り替えます（再振替）。前日までに口座の残高をご用意ください。`
    : input.carriedOver
      ? "この金額は次回の振替に合算して振り替えます。次回の振替日の前日までに口座の残高をご用意ください。"
      : `再振替の予定はありません。お支払い方法について ${merchantName} からご連絡します。`;
  return {
    subject: `【${merchantName}】口座振替ができませんでした`,
    body: [
      `${merchantName}「${input.description}」の${input.period.replace("-", "年")}月分、${formatJstDate(input.debitDate)}の口座振替（${formatYen(input.amount)}）ができませんでした。`,
      `理由: ${errorTypeMessagesJa[input.errorType]}`,
      next,
      `お支払いの停止をご希望の場合は ${merchantName} までお申し出ください。`,
    ].join("\n"),
  };
}

/** Whether a period's 振替予定のお知らせ is due on `today`: `noticeDays` (> 0) before its debit date or later. */
export function noticeDue(debitDate: JstDate, noticeDays: number, today: JstDate): boolean {
  return noticeDays > 0 && addDays(debitDate, -noticeDays) <= today;
}

/**
 * 振替予定のお知らせ (docs/guide/recurring-billing.md#notices): the amount, the date, the merchant,
 * and how to stop the debits.
 */
export function debitScheduleMessage(input: {
  merchantName: string;
  description: string;
  period: string;
  amount: number;
  debitDate: JstDate;
}): { subject: string; body: string } {
  const { merchantName } = input;
  return {
    subject: `【${merchantName}】振替予定のお知らせ`,
    body: [
      `${merchantName}「${input.description}」の${input.period.replace("-", "年")}月分を、次のとおり口座振替いたします。`,
      `振替日: ${formatJstDate(input.debitDate)}`,
      `金額: ${formatYen(input.amount)}`,
      "振替日の前日までに口座の残高をご用意ください。",
      `振替の停止をご希望の場合は、振替日より前に ${merchantName} までお申し出ください（お客様アプリからも停止をお申し込みいただけます）。`,
    ].join("\n"),
  };
}
