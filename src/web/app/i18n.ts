/** The customer app's words, Japanese first and English second; the choice is kept in localStorage. */
export type Lang = "ja" | "en";

const ja = {
  appTitle: "ご利用明細",
  langToggle: "English",
  langToggleLabel: "Switch to English",
  sandboxBadge: "テスト環境（サンドボックス）",
  navHistory: "ご利用履歴",
  navMerchants: "お店と口座",
  signOut: "ログアウト",
  mainNav: "メニュー",
  loading: "読み込み中…",
  signInHeading: "ログイン",
  signInIntro: "口座振替をご利用のお店に登録したメールアドレスを入力してください。確認コードをお送りします。",
  email: "メールアドレス",
  sendCode: "確認コードを送信",
  codeSentIntro: (email: string) =>
    `${email} が登録されている場合、6桁の確認コードを送信しました。メールに記載のコードを入力してください。`,
  code: "確認コード（6桁）",
  codeHint: "メールに記載された6桁の数字",
  verify: "ログイン",
  resend: "コードを再送信",
  otherEmail: "別のメールアドレスを使う",
  wrongCode: (left: number) => `確認コードが正しくありません。あと ${left} 回入力できます。`,
  noAttempts: "入力回数の上限に達しました。新しいコードを送信してください。",
  historyHeading: "ご利用履歴",
  filters: "絞り込み",
  merchant: "お店",
  allMerchants: "すべてのお店",
  month: "月",
  apply: "表示する",
  noTransactions: "該当するご利用はありません。",
  more: "さらに表示",
  date: "日時",
  description: "内容",
  initialAmount: "請求額",
  discount: "割引",
  finalAmount: "お支払い額",
  status: "状況",
  failureReason: "失敗の理由",
  refunds: "返金",
  refund: (amount: string, status: string) => `${amount}（${status}）`,
  receiptLink: "領収書を表示",
  chargeId: "取引番号",
  merchantsHeading: "お店と口座",
  noMerchants: "このメールアドレスで登録されたお店はありません。",
  contact: "お問い合わせ先",
  contracts: "口座振替の契約",
  noContracts: "口座振替の契約はありません。",
  account: "引き落とし口座",
  consentedAt: "口座振替の同意日",
  contractStatus: "契約の状態",
  stopRequested: (when: string) => `解約を依頼済み（${when}）`,
  askStop: "解約を依頼する",
  stopHeading: "解約の依頼",
  stopIntro:
    "お店に口座振替の停止（解約）を依頼します。契約はお店が手続きするまで有効のままです。手続きの状況はお店にお問い合わせください。",
  reason: "理由（任意）",
  sendStop: "解約を依頼する",
  stopSent: "解約の依頼をお店に送信しました。",
  back: "戻る",
  receiptHeading: "領収書",
  receiptTo: (email: string) => `${email} 様`,
  receiptAmount: "金額",
  receiptFor: "但し書き",
  paidAt: "お支払い日",
  refundedSince: "返金済みの額",
  issuer: "発行者",
  issuedAt: "発行日",
  print: "印刷する / PDFで保存",
  receiptNote: "口座振替によるお支払いを確かに受領しました。",
  errors: {
    network: "サーバーに接続できませんでした。通信状態をご確認のうえ、もう一度お試しください。",
    resource_exhausted: "短時間に操作が繰り返されました。少し待ってからもう一度お試しください。",
    failed_precondition: "この操作は今は行えません。",
    not_found: "見つかりませんでした。",
    invalid_argument: "入力内容をご確認ください。",
    other: "エラーが発生しました。もう一度お試しください。",
  } as Record<string, string>,
  reasons: {
    SIGN_IN_CODE_TOO_SOON: "コードを送信したばかりです。30秒ほど待ってから再送信してください。",
    SIGN_IN_CODE_LIMIT: "本日送信できるコードの上限に達しました。明日もう一度お試しください。",
    RECEIPT_NOT_AVAILABLE: "このお支払いには領収書がありません（引き落としされていません）。",
    CONTRACT_ENDED: "この契約はすでに終了しています。",
    SESSION_REQUIRED: "ログインの有効期限が切れました。もう一度ログインしてください。",
  } as Record<string, string>,
};

const en: typeof ja = {
  appTitle: "Payment history",
  langToggle: "日本語",
  langToggleLabel: "日本語に切り替える",
  sandboxBadge: "Test environment (sandbox)",
  navHistory: "History",
  navMerchants: "Shops and accounts",
  signOut: "Sign out",
  mainNav: "Menu",
  loading: "Loading…",
  signInHeading: "Sign in",
  signInIntro: "Enter the e-mail address you gave the shops that debit your account. We will send you a code.",
  email: "E-mail address",
  sendCode: "Send a code",
  codeSentIntro: (email: string) =>
    `If ${email} is registered, a 6-digit code has been sent to it. Enter the code from the e-mail.`,
  code: "Code (6 digits)",
  codeHint: "The 6 digits from the e-mail",
  verify: "Sign in",
  resend: "Send a new code",
  otherEmail: "Use another e-mail address",
  wrongCode: (left: number) => `That code is not right. ${left} tries left.`,
  noAttempts: "Too many tries. Please ask for a new code.",
  historyHeading: "Payment history",
  filters: "Filter",
  merchant: "Shop",
  allMerchants: "All shops",
  month: "Month",
  apply: "Show",
  noTransactions: "No payments match.",
  more: "Show more",
  date: "Date",
  description: "Description",
  initialAmount: "Amount billed",
  discount: "Discount",
  finalAmount: "Amount paid",
  status: "Status",
  failureReason: "Why it failed",
  refunds: "Refunds",
  refund: (amount: string, status: string) => `${amount} (${status})`,
  receiptLink: "Show the receipt",
  chargeId: "Transaction number",
  merchantsHeading: "Shops and accounts",
  noMerchants: "No shop has this e-mail address.",
  contact: "Contact",
  contracts: "Direct-debit contracts",
  noContracts: "No direct-debit contract.",
  account: "Account debited",
  consentedAt: "Direct debit agreed on",
  contractStatus: "Contract status",
  stopRequested: (when: string) => `Stop requested (${when})`,
  askStop: "Ask the shop to stop",
  stopHeading: "Ask the shop to stop debiting",
  stopIntro:
    "This asks the shop to stop debiting your account (cancel the direct debit). The contract stays in force until the shop acts on it; ask the shop how it is going.",
  reason: "Reason (optional)",
  sendStop: "Send the request",
  stopSent: "Your request was sent to the shop.",
  back: "Back",
  receiptHeading: "Receipt",
  receiptTo: (email: string) => `To ${email}`,
  receiptAmount: "Amount",
  receiptFor: "For",
  paidAt: "Paid on",
  refundedSince: "Refunded since",
  issuer: "Issued by",
  issuedAt: "Issued on",
  print: "Print / save as PDF",
  receiptNote: "Received with thanks by direct debit.",
  errors: {
    network: "Could not reach the server. Check your connection and try again.",
    resource_exhausted: "Too many tries in a short time. Please wait a moment and try again.",
    failed_precondition: "This cannot be done now.",
    not_found: "Not found.",
    invalid_argument: "Please check what you entered.",
    other: "Something went wrong. Please try again.",
  },
  reasons: {
    SIGN_IN_CODE_TOO_SOON: "A code was just sent. Wait about 30 seconds before asking for another.",
    SIGN_IN_CODE_LIMIT: "No more codes can be sent today. Please try again tomorrow.",
    RECEIPT_NOT_AVAILABLE: "This payment has no receipt (nothing was debited).",
    CONTRACT_ENDED: "This contract has already ended.",
    SESSION_REQUIRED: "Your sign-in has expired. Please sign in again.",
  },
};

const dictionaries: Record<Lang, typeof ja> = { ja, en };
const storageKey = "furikomi.app.lang";
let current: Lang = "ja";

/** Japanese unless English was chosen before (the choice only; nothing personal is stored). */
export function initialLang(): Lang {
  return localStorage.getItem(storageKey) === "en" ? "en" : "ja";
}

export function setLang(lang: Lang): void {
  current = lang;
  localStorage.setItem(storageKey, lang);
  document.documentElement.lang = lang;
}

export function lang(): Lang {
  return current;
}

export function t(): typeof ja {
  return dictionaries[current];
}
