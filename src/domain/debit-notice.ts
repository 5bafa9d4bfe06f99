import { debitNoticeWording } from "./customer-wording.js";
import type { JstDate } from "./jst.js";

/**
 * The e-mail that tells the customer, once a payment approved on the hosted page is accepted for a
 * debit date, when and how much is debited (docs/guide/hosted-page.md#when-the-account-is-debited):
 * the outcome page's words (domain/customer-wording.ts), Japanese first, then English.
 */
export function debitNoticeMessage(notice: {
  merchantName: string;
  chargeId: string;
  amount: number;
  debitDate: JstDate;
}): { subject: string; body: string } {
  const { merchantName, chargeId } = notice;
  const wording = debitNoticeWording(notice.debitDate, notice.amount);
  return {
    subject: `【${merchantName}】口座振替のお知らせ / Direct debit notice`,
    body: [
      `${merchantName} へのお支払いを受け付けました。`,
      `${wording.ja}。振替日の前日までに口座の残高をご用意ください。`,
      `受付番号: ${chargeId}`,
      "",
      `Your payment to ${merchantName} was accepted.`,
      `${wording.en}. Please have the balance in the account by the day before.`,
      `Reference: ${chargeId}`,
    ].join("\n"),
  };
}
