/**
 * The direct-debit (口座振替) terms the customer accepts on the consent screen. The version is
 * recorded with every mandate; changing the text means a new version, so what a customer accepted
 * can always be shown again (mandateTermsText of that version).
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

export const currentMandateTerms: MandateTerms = Object.freeze({ version: "2026-11-24", text: terms20261124 });

const allTerms: readonly MandateTerms[] = [currentMandateTerms];

/** The text a version had (every version ever shown stays here). */
export function mandateTermsText(version: string): string | undefined {
  return allTerms.find((terms) => terms.version === version)?.text;
}
