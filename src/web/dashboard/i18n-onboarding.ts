import { lang } from "./i18n.js";

/** The words of the sign-up page and the first-screen guide (docs/guide/getting-started.md), Japanese first. */
const ja = {
  signUpLink: "はじめての方は新規登録",
  signUpTitle: "新規登録",
  signUpIntro: "メールアドレスに確認コードを送ります。サンドボックスはすぐに使えます。",
  email: "メールアドレス",
  sendCode: "確認コードを送る",
  codeSent: (email: string) => `${email} に6桁の確認コードを送りました(10分間有効)。`,
  code: "確認コード(6桁)",
  password: "パスワード(12文字以上)",
  businessName: "事業者名(お客様に表示されます)",
  create: "登録する",
  wrongCode: (left: number) => `確認コードが違います(あと${left}回)。`,
  secretsTitle: "APIキーとWebhook署名シークレット",
  secretsIntro: "この画面でしか表示されません。安全な場所に保存してください。",
  apiKey: "APIキー(サンドボックス)",
  noLiveKey: "本番のAPIキーは、本番利用の審査が承認された後に作成できます。",
  webhookSecret: "Webhook署名シークレット",
  saved: "保存しました。2段階認証の設定へ",
  toSignIn: "ログイン画面へ戻る",
  startTitle: "はじめに",
  startSteps: [
    "サンドボックスのAPIキーで決済リンクを作成します(POST /v1/payments/on-session)。",
    "「APIキーとWebhook」でWebhookのURLを登録し、「Webhookイベント」で送られたWebhookを確認します。",
    "ドキュメントの「はじめに」と「オンセッション決済」を読みます。",
  ],
  docsLink: "ドキュメント",
  reasons: {
    SIGN_IN_CODE_TOO_SOON: "コードを送信したばかりです。30秒ほど待ってから再送信してください。",
    SIGN_IN_CODE_LIMIT: "本日送信できるコードの上限に達しました。明日もう一度お試しください。",
  } as Record<string, string>,
};

const en: typeof ja = {
  signUpLink: "New here? Sign up",
  signUpTitle: "Sign up",
  signUpIntro: "We send a code to your e-mail. The sandbox is yours at once.",
  email: "E-mail",
  sendCode: "Send the code",
  codeSent: (email: string) => `A 6-digit code was sent to ${email} (valid 10 minutes).`,
  code: "Code (6 digits)",
  password: "Password (at least 12 characters)",
  businessName: "Business name (shown to your customers)",
  create: "Sign up",
  wrongCode: (left: number) => `That code is wrong (${left} attempts left).`,
  secretsTitle: "API key and webhook signing secret",
  secretsIntro: "Shown only here, only now. Keep them somewhere safe.",
  apiKey: "API key (sandbox)",
  noLiveKey: "A live API key can be created once the operator approved your going-live checklist.",
  webhookSecret: "Webhook signing secret",
  saved: "Saved. On to two-step verification",
  toSignIn: "Back to sign-in",
  startTitle: "Get started",
  startSteps: [
    "Create a payment link with your sandbox API key (POST /v1/payments/on-session).",
    "Set your webhook URL under API keys & webhooks, and see the webhooks sent under Webhook events.",
    "Read Getting started and On-session payments in the documentation.",
  ],
  docsLink: "Documentation",
  reasons: {
    SIGN_IN_CODE_TOO_SOON: "A code was just sent. Wait about 30 seconds before asking for another.",
    SIGN_IN_CODE_LIMIT: "Today's codes for this e-mail are used up. Try again tomorrow.",
  },
};

export function ot(): typeof ja {
  return lang() === "ja" ? ja : en;
}
