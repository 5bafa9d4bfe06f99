import { DebitTiming } from "../../gen/payments/v1/enums_pb.js";

/**
 * The direct-debit (口座振替) terms the customer accepts on the consent screen. The version is
 * recorded with every mandate; changing the text means a new version, so what a customer accepted
 * can always be shown again (mandateTermsText of that version). Which version is current depends
 * on when the deployment's bank debits (docs/guide/hosted-page.md#when-the-account-is-debited).
 */
export interface MandateTerms {
  readonly version: string;
  readonly text: string;
}

const terms20261124 = `口座振替規定（2026-11-24 版）
1. お客さまは、表示された加盟店がご請求する代金を、ご指定の口座から口座振替（自動引き落とし）により支払うことに同意します。
2. 引き落としは、加盟店がご請求するたびに、その都度の金額を、当該請求の処理日（銀行営業日）に行います。今回のお支払いがある場合は、承認時に引き落とされます。
3. 残高不足などで引き落とせなかった場合、その請求は不成立となり、加盟店からご連絡することがあります。
4. この口座振替の停止・口座の変更は、加盟店の連絡先または口座のある金融機関にお申し出ください。
5. お申し込みの記録（規定の版、日時、接続元、ブラウザ、口座情報のハッシュ）は、金融機関や紛争の際の確認のため保存されます。

Direct debit terms (version 2026-11-24)
1. You agree to pay what the merchant shown bills you by direct debit from the account you chose.
2. Each amount is debited when the merchant bills it, on that bill's processing day (a bank business day). Today's payment, if any, is debited when you approve.
3. A debit that fails (for example for insufficient funds) is not paid, and the merchant may contact you.
4. To stop this direct debit or change the account, contact the merchant or your bank.
5. A record of this consent (terms version, time, address, browser, and a hash of the account details) is kept for your bank and for disputes.`;

/** Under the Zengin connector: §2 says the debit is made on the debit date (振替日) shown, never at approval. */
const terms20261128 = `口座振替規定（2026-11-28 版）
1. お客さまは、表示された加盟店がご請求する代金を、ご指定の口座から口座振替（自動引き落とし）により支払うことに同意します。
2. 引き落としは、加盟店がご請求するたびに、その都度の金額を、当該請求の受付時に決まる振替日（銀行営業日）に行います。承認の時点では引き落とされません。今回のお支払いがある場合は、承認の画面とお知らせのメールに表示する振替日に、表示する金額を引き落とします。振替日の前日までに口座の残高をご用意ください。
3. 残高不足などで引き落とせなかった場合、その請求は不成立となり、加盟店からご連絡することがあります。
4. この口座振替の停止・口座の変更は、加盟店の連絡先または口座のある金融機関にお申し出ください。
5. お申し込みの記録（規定の版、日時、接続元、ブラウザ、口座情報のハッシュ）は、金融機関や紛争の際の確認のため保存されます。

Direct debit terms (version 2026-11-28)
1. You agree to pay what the merchant shown bills you by direct debit from the account you chose.
2. Each amount is debited on its debit date (a bank business day), fixed when the merchant's bill is accepted; nothing is debited when you approve. Today's payment, if any, is debited on the debit date and for the amount shown on the approval screen and in the notice e-mail. Please have the balance in the account by the day before.
3. A debit that fails (for example for insufficient funds) is not paid, and the merchant may contact you.
4. To stop this direct debit or change the account, contact the merchant or your bank.
5. A record of this consent (terms version, time, address, browser, and a hash of the account details) is kept for your bank and for disputes.`;

/** The terms where the bank books at approval (the simulated connector). */
export const mandateTermsAtApproval: MandateTerms = Object.freeze({ version: "2026-11-24", text: terms20261124 });
/** The terms where each charge is debited on its debit date (the Zengin connector). */
export const mandateTermsOnDebitDate: MandateTerms = Object.freeze({ version: "2026-11-28", text: terms20261128 });

const allTerms: readonly MandateTerms[] = [mandateTermsAtApproval, mandateTermsOnDebitDate];

/** The terms a customer accepts today, for the deployment's debit timing. */
export function currentMandateTerms(timing: DebitTiming): MandateTerms {
  return timing === DebitTiming.ON_DEBIT_DATE ? mandateTermsOnDebitDate : mandateTermsAtApproval;
}

/** The text a version had (every version ever shown stays here). */
export function mandateTermsText(version: string): string | undefined {
  return allTerms.find((terms) => terms.version === version)?.text;
}
