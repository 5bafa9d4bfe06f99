import { lang } from "./i18n.js";

/** The words of the consignor page, the settings forms' messages and the first-enrolment notice, Japanese first. */
const ja = {
  navConsignor: "口座振替の委託者",
  consignorTitle: "口座振替の委託者設定",
  consignorIntro:
    "全銀ファイル(口座振替・返金振込)に書く委託者の契約です。委託者コード、委託者名、引落口座を銀行との契約どおりに設定してください。",
  accountType: "預金種目",
  accountTypes: { "1": "普通", "2": "当座", "9": "その他" } as Record<string, string>,
  totpFirst:
    "ようこそ。ダッシュボードを使う前に、まず2段階認証を設定してください。認証アプリでQRコードを読み取り、表示された6桁のコードを入力すると、ほかのページが使えるようになります。",
};

const en: typeof ja = {
  navConsignor: "Direct debit consignor",
  consignorTitle: "Direct debit consignor (委託者) settings",
  consignorIntro:
    "The consignor contracts written into the Zengin files (account debits, refund transfers): set the consignor code, name and account as agreed with the bank.",
  accountType: "Account type (預金種目)",
  accountTypes: { "1": "Ordinary (普通)", "2": "Current (当座)", "9": "Other (その他)" },
  totpFirst:
    "Welcome. Before using the dashboard, set up two-step verification: scan the QR code with an authenticator app and enter the 6-digit code it shows; the other pages open after that.",
};

export function st(): typeof ja {
  return lang() === "ja" ? ja : en;
}
