import type { ErrorType } from "../../gen/payments/v1/enums_pb.js";
import { errorTypeMessagesJa } from "./payment-failure.js";
import type { JstDate } from "./jst.js";

/** Yen as a customer reads it: 3,300円. */
function yen(amount: number): string {
  return `${amount.toLocaleString("ja-JP")}円`;
}

/** 2026-12-28 → 2026年12月28日. */
function japaneseDate(date: JstDate): string {
  const [year, month, day] = date.split("-").map(Number);
  return `${year}年${month}月${day}日`;
}

/**
 * The e-mail to the customer after a subscription's debit failed
 * (docs/guide/recurring-billing.md#re-debits-and-dunning): the amount, the reason, and the
 * re-debit's date when one is scheduled, else that the merchant will be in touch.
 */
export function debitFailureMessage(input: {
  merchantName: string;
  description: string;
  period: string;
  amount: number;
  debitDate: JstDate;
  errorType: ErrorType;
  retryDebitDate?: JstDate;
}): { subject: string; body: string } {
  const { merchantName } = input;
  const next = input.retryDebitDate
    ? `${japaneseDate(input.retryDebitDate)}に同じ金額を再度振り替えます（再振替）。前日までに口座の残高をご用意ください。`
    : `再振替の予定はありません。お支払い方法について ${merchantName} からご連絡します。`;
  return {
    subject: `【${merchantName}】口座振替ができませんでした`,
    body: [
      `${merchantName}「${input.description}」の${input.period.replace("-", "年")}月分、${japaneseDate(input.debitDate)}の口座振替（${yen(input.amount)}）ができませんでした。`,
      `理由: ${errorTypeMessagesJa[input.errorType]}`,
      next,
      `お支払いの停止をご希望の場合は ${merchantName} までお申し出ください。`,
    ].join("\n"),
  };
}
