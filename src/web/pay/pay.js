// The hosted payment page: InitiatePayment → two-factor code → bank link → KYC → ApprovePayment.
// Plain ES module, no build step, no network resources but this server's own RPCs
// (Connect protocol, JSON form: POST /payments.v1.HostedPageService/<Method>).

/** Every string the page shows, in both languages. A function takes the message's parameters. */
const messages = {
  ja: {
    title: "お支払い",
    loading: "読み込み中…",
    sandboxBadge: "テスト環境（サンドボックス）",
    langToggle: "English",
    langToggleLabel: "Switch to English",
    footer: "このページはお店に代わって furikomi が提供する安全なお支払いページです。",
    backToShop: "ショップに戻る",
    continueToShop: "ショップに戻る",
    retry: "もう一度読み込む",
    payTo: "お支払い先",
    summaryHeading: "お支払い内容",
    amount: "金額",
    noCharge: "今回の請求なし",
    description: "内容",
    expiresAt: "リンクの有効期限",
    expiresAtValue: ({ when }) => `${when} まで`,
    workflow: {
      PAYMENT_WORKFLOW_CONTRACT_WITH_CHARGE: "今回のお支払いと同時に、今後の口座振替のための口座登録を行います。",
      PAYMENT_WORKFLOW_CONTRACT: "今回のお支払いはありません。今後の口座振替のための口座登録のみ行います。",
      PAYMENT_WORKFLOW_CHARGE: "登録済みの口座からお支払いします。",
      PAYMENT_WORKFLOW_ONE_TIME_CHARGE: "1回限りのお支払いです。",
    },
    progressHeading: "お手続きの流れ",
    stepDone: "（完了）",
    stepCurrent: "（現在の手順）",
    steps: {
      twoFactor: "確認コード",
      bank: "口座の登録",
      kyc: "本人確認",
      approve: "お支払い",
      approveContract: "登録の承認",
    },
    twoFactor: {
      heading: "メールアドレスの確認",
      intro: ({ email }) => `ご本人確認のため、${email} に6桁の確認コードをお送りします。`,
      sentIntro: ({ email, until }) =>
        `${email} に6桁の確認コードを送信しました。メールに記載のコードを入力してください${until ? `（${until} まで有効）` : ""}。`,
      send: "確認コードを送信",
      sent: "確認コードを送信しました。",
      resent: "新しい確認コードを送信しました。",
      codeLabel: "確認コード（6桁）",
      codeHint: "メールに記載された6桁の数字",
      verify: "確認する",
      resend: "コードを再送信",
      resendIn: ({ seconds }) => `あと ${seconds} 秒で再送信できます`,
      wrong: ({ attempts }) => `確認コードが正しくありません。あと ${attempts} 回入力できます。`,
      noAttempts: "入力回数の上限に達しました。新しいコードを送信してください。",
      unusable:
        "このコードは使えません（有効期限切れ、入力回数の上限、または使用済み）。新しいコードを送信してください。",
      verified: "メールアドレスを確認しました。",
    },
    bank: {
      heading: "お支払いに使う口座の登録",
      intro: "お支払いに使う銀行口座（普通預金）を入力してください。",
      sandboxNote: "テスト環境の模擬銀行です。実際のお金は動きません。入力例があらかじめ入っています。",
      bankCode: "金融機関コード",
      bankCodeHint: "4桁の数字",
      branchCode: "支店コード",
      branchCodeHint: "3桁の数字",
      accountNumber: "口座番号（普通）",
      accountNumberHint: "7桁の数字",
      accountHolder: "口座名義（カタカナ）",
      accountHolderHint: "通帳の表記どおりに。例: ヤマダ タロウ",
      pin: "暗証番号（銀行が求める場合）",
      pinHint: "口座の4桁の暗証番号",
      oneTimePassword: "ワンタイムパスワード（銀行が求める場合）",
      oneTimePasswordHint: "銀行から届いた6桁の数字",
      submit: "この口座を登録する",
      linked: "口座を登録しました。",
    },
    kyc: {
      heading: "本人確認",
      intro: "このお店は、お支払いの前に本人確認をお願いしています。",
      name: "氏名",
      katakanaLastName: "セイ（カタカナ）",
      katakanaFirstName: "メイ（カタカナ）",
      katakanaHint: "カタカナで入力してください（ひらがなは自動でカタカナに変換します）。",
      birthDate: "生年月日",
      address: "住所",
      gender: "性別（任意）",
      genderNone: "回答しない",
      genderFemale: "女性",
      genderMale: "男性",
      submit: "本人確認情報を送信する",
      status: {
        KYC_STATUS_IN_REVIEW: "本人確認情報を受け付けました（確認中）。",
        KYC_STATUS_APPROVED: "本人確認が完了しました。",
        KYC_STATUS_DENIED: "本人確認が承認されませんでした。",
        other: "本人確認情報を受け付けました。",
      },
    },
    approve: {
      heading: "お支払いの承認",
      headingContract: "口座振替の登録",
      intro: ({ amount, merchant }) =>
        `${merchant} への ${amount} のお支払いを承認します。ボタンを押すと登録口座から引き落とされます。`,
      introContract: ({ merchant }) =>
        `${merchant} が今後この口座から引き落とすことを承認します。今回の請求はありません。`,
      button: ({ amount }) => `${amount} を支払う`,
      buttonContract: "登録を承認する",
      working: "処理中です。このページを閉じないでください…",
    },
    done: {
      success: "お支払いが完了しました",
      successContract: "登録が完了しました",
      pending: "お支払いを受け付けました",
      failed: "お支払いができませんでした",
      redirecting: "ショップのページに移動しています…",
      failedRedirecting: ({ reason }) => `${reason}ショップのページに移動しています…`,
      text: "ショップのページに戻ってお手続きを続けてください。",
      waitingKyc: "本人確認の結果が出しだい、お支払いが確定します。ショップのページに戻ってお待ちください。",
    },
    problem: {
      finishedHeading: "このお支払いは終了しています",
      finishedText: "お支払いの内容と結果はこのページでは表示されなくなりました。結果はお店にお問い合わせください。",
      expiredHeading: "このお支払いリンクは有効期限が切れています",
      expiredText: "お支払いは行われていません。お店に新しいリンクをご依頼ください。",
      unknownHeading: "お支払いリンクが見つかりません",
      unknownText: "リンクが途中で切れていないかご確認ください。お支払いは行われていません。",
      errorHeading: "このお支払いを開始できません",
      networkHeading: "接続できませんでした",
      networkText: "通信状態をご確認のうえ、もう一度お試しください。",
    },
    paymentError: {
      PAYMENT_ERROR_CODE_BAD_REQUEST: "お支払いの内容に不備があります。お店にお問い合わせください。",
      PAYMENT_ERROR_CODE_CUSTOMER_NOT_FOUND: "お客様の登録情報が見つかりません。お店にお問い合わせください。",
      PAYMENT_ERROR_CODE_CUSTOMER_INACTIVE: "お客様の登録が有効ではありません。お店にお問い合わせください。",
      PAYMENT_ERROR_CODE_NOT_FOUND: "お支払いが見つかりません。",
      PAYMENT_ERROR_CODE_UNDER_MAINTENANCE:
        "銀行がメンテナンス中のため、お支払いできませんでした。時間をおいて、お店からの新しいリンクでお試しください。",
      PAYMENT_ERROR_CODE_INTERNAL: "お支払いを処理できませんでした。お店にお問い合わせください。",
      PAYMENT_ERROR_CODE_EXPIRED: "お支払いリンクの有効期限が切れました。",
      PAYMENT_ERROR_CODE_REJECTED: "銀行がこのお支払いを受け付けませんでした。",
      PAYMENT_ERROR_CODE_OVER_LIMIT: "お支払い金額が口座の利用限度額を超えています。",
      PAYMENT_ERROR_CODE_KYC_REQUIRED: "本人確認が完了していないため、お支払いできませんでした。",
      PAYMENT_ERROR_CODE_INSUFFICIENT_FUNDS: "口座の残高が不足しています。",
      other: "お支払いができませんでした。",
    },
    rpcError: {
      network: "サーバーに接続できませんでした。通信状態をご確認のうえ、もう一度お試しください。",
      resource_exhausted: "短時間に操作が繰り返されました。少し待ってからもう一度お試しください。",
      unavailable: "ただいま処理できません。少し時間をおいてからお試しください。",
      failed_precondition: "この操作は今は行えません（前の手順が済んでいないか、すでに完了しています）。",
      aborted: "このお支払いは別の画面で処理中です。しばらくお待ちください。",
      not_found: "お支払いリンクが見つかりません。",
      other: "エラーが発生しました。もう一度お試しください。",
    },
    field: {
      required: "入力してください。",
      code: "メールに記載された6桁の数字を入力してください。",
      bank_code: "4桁の数字で入力してください。",
      branch_code: "3桁の数字で入力してください。",
      account_number: "7桁の数字で入力してください。",
      account_holder: "カタカナ・英大文字・数字・スペース・( ) - . / で入力してください。",
      pin: "暗証番号またはワンタイムパスワードが違います（4桁と6桁の数字）。",
      one_time_password: "6桁の数字で入力してください。",
      kana: "カタカナで入力してください。",
      birth_date: "生年月日を正しく入力してください。",
      invalid: "入力内容をご確認ください。",
      summary: "入力内容をご確認ください。",
    },
  },
  en: {
    title: "Payment",
    loading: "Loading…",
    sandboxBadge: "Test environment (sandbox)",
    langToggle: "日本語",
    langToggleLabel: "日本語に切り替える",
    footer: "A secure payment page provided by furikomi on behalf of the shop.",
    backToShop: "Return to the shop",
    continueToShop: "Continue to the shop",
    retry: "Try again",
    payTo: "Paying",
    summaryHeading: "Payment details",
    amount: "Amount",
    noCharge: "Nothing charged now",
    description: "For",
    expiresAt: "Link valid until",
    expiresAtValue: ({ when }) => when,
    workflow: {
      PAYMENT_WORKFLOW_CONTRACT_WITH_CHARGE:
        "You pay now and register your bank account for the shop's future payments.",
      PAYMENT_WORKFLOW_CONTRACT:
        "Nothing is charged now: you register your bank account for the shop's future payments.",
      PAYMENT_WORKFLOW_CHARGE: "Paid from your registered bank account.",
      PAYMENT_WORKFLOW_ONE_TIME_CHARGE: "A one-time payment.",
    },
    progressHeading: "Steps",
    stepDone: " (done)",
    stepCurrent: " (current step)",
    steps: { twoFactor: "Code", bank: "Bank account", kyc: "Identity", approve: "Pay", approveContract: "Confirm" },
    twoFactor: {
      heading: "Confirm your e-mail",
      intro: ({ email }) => `To make sure it is you, we send a 6-digit code to ${email}.`,
      sentIntro: ({ email, until }) =>
        `We sent a 6-digit code to ${email}. Enter the code from the e-mail${until ? ` (valid until ${until})` : ""}.`,
      send: "Send the code",
      sent: "Code sent.",
      resent: "A new code has been sent.",
      codeLabel: "Code (6 digits)",
      codeHint: "The 6 digits in the e-mail",
      verify: "Verify",
      resend: "Send a new code",
      resendIn: ({ seconds }) => `You can ask for a new code in ${seconds} s`,
      wrong: ({ attempts }) => `That code is not right. ${attempts} ${attempts === 1 ? "try" : "tries"} left.`,
      noAttempts: "Too many wrong codes. Please ask for a new code.",
      unusable:
        "This code can no longer be used (expired, too many tries, or already used). Please ask for a new code.",
      verified: "E-mail confirmed.",
    },
    bank: {
      heading: "Link the bank account to pay from",
      intro: "Enter the bank account (ordinary savings) the payment is taken from.",
      sandboxNote: "This is a simulated bank in the test environment: no real money moves. Demo values are filled in.",
      bankCode: "Bank code",
      bankCodeHint: "4 digits",
      branchCode: "Branch code",
      branchCodeHint: "3 digits",
      accountNumber: "Account number (ordinary)",
      accountNumberHint: "7 digits",
      accountHolder: "Account holder (katakana)",
      accountHolderHint: "As on your bankbook, e.g. ヤマダ タロウ",
      pin: "PIN (if your bank asks)",
      pinHint: "The account's 4-digit PIN",
      oneTimePassword: "One-time password (if your bank asks)",
      oneTimePasswordHint: "The 6 digits your bank sent",
      submit: "Link this account",
      linked: "Bank account linked.",
    },
    kyc: {
      heading: "Verify your identity",
      intro: "This shop asks you to verify your identity before paying.",
      name: "Full name",
      katakanaLastName: "Last name (katakana)",
      katakanaFirstName: "First name (katakana)",
      katakanaHint: "In katakana (hiragana is converted for you).",
      birthDate: "Date of birth",
      address: "Address",
      gender: "Gender (optional)",
      genderNone: "Prefer not to say",
      genderFemale: "Female",
      genderMale: "Male",
      submit: "Submit identity details",
      status: {
        KYC_STATUS_IN_REVIEW: "Identity details received (being checked).",
        KYC_STATUS_APPROVED: "Identity verified.",
        KYC_STATUS_DENIED: "Identity verification was not approved.",
        other: "Identity details received.",
      },
    },
    approve: {
      heading: "Approve the payment",
      headingContract: "Approve the registration",
      intro: ({ amount, merchant }) =>
        `You are approving a payment of ${amount} to ${merchant}, taken from your linked account.`,
      introContract: ({ merchant }) =>
        `You allow ${merchant} to take future payments from this account. Nothing is charged now.`,
      button: ({ amount }) => `Pay ${amount}`,
      buttonContract: "Approve the registration",
      working: "Processing. Please keep this page open…",
    },
    done: {
      success: "Payment complete",
      successContract: "Registration complete",
      pending: "Payment received",
      failed: "The payment did not go through",
      redirecting: "Taking you back to the shop…",
      failedRedirecting: ({ reason }) => `${reason} Taking you back to the shop…`,
      text: "Return to the shop to continue.",
      waitingKyc: "The payment completes once your identity check is done. You can return to the shop meanwhile.",
    },
    problem: {
      finishedHeading: "This payment is finished",
      finishedText: "Its details and result are no longer shown on this page. The shop can tell you the result.",
      expiredHeading: "This payment link has expired",
      expiredText: "Nothing was charged. Please ask the shop for a new link.",
      unknownHeading: "Payment link not found",
      unknownText: "Check that the link is complete. Nothing was charged.",
      errorHeading: "This payment cannot be started",
      networkHeading: "Could not connect",
      networkText: "Check your connection and try again.",
    },
    paymentError: {
      PAYMENT_ERROR_CODE_BAD_REQUEST: "Something is wrong with this payment request. Please contact the shop.",
      PAYMENT_ERROR_CODE_CUSTOMER_NOT_FOUND: "Your customer record was not found. Please contact the shop.",
      PAYMENT_ERROR_CODE_CUSTOMER_INACTIVE: "Your customer record is not active. Please contact the shop.",
      PAYMENT_ERROR_CODE_NOT_FOUND: "This payment was not found.",
      PAYMENT_ERROR_CODE_UNDER_MAINTENANCE:
        "The bank is under maintenance, so the payment could not be made. Please try later with a new link from the shop.",
      PAYMENT_ERROR_CODE_INTERNAL: "The payment could not be processed. Please contact the shop.",
      PAYMENT_ERROR_CODE_EXPIRED: "The payment link has expired.",
      PAYMENT_ERROR_CODE_REJECTED: "The bank declined this payment.",
      PAYMENT_ERROR_CODE_OVER_LIMIT: "The amount is above your account's limit.",
      PAYMENT_ERROR_CODE_KYC_REQUIRED: "The payment needs a completed identity verification.",
      PAYMENT_ERROR_CODE_INSUFFICIENT_FUNDS: "Your account balance is too low.",
      other: "The payment did not go through.",
    },
    rpcError: {
      network: "Could not reach the server. Check your connection and try again.",
      resource_exhausted: "Too many tries in a short time. Please wait a moment and try again.",
      unavailable: "This cannot be done right now. Please try again in a little while.",
      failed_precondition: "This cannot be done now (an earlier step is not finished, or this one is already done).",
      aborted: "This payment is being processed in another window. Please wait.",
      not_found: "Payment link not found.",
      other: "Something went wrong. Please try again.",
    },
    field: {
      required: "Please fill this in.",
      code: "Enter the 6 digits from the e-mail.",
      bank_code: "Enter 4 digits.",
      branch_code: "Enter 3 digits.",
      account_number: "Enter 7 digits.",
      account_holder: "Use katakana, A–Z, 0–9, space and ( ) - . / only.",
      pin: "The PIN or one-time password is wrong (4 and 6 digits).",
      one_time_password: "Enter 6 digits.",
      kana: "Please use katakana.",
      birth_date: "Enter a valid date of birth.",
      invalid: "Please check this field.",
      summary: "Please check the highlighted fields.",
    },
  },
};

const languageKey = "furikomi.pay.language";
/** Demo values for the simulated bank (sandbox only). */
const sandboxBankAccount = {
  bank_code: "0001",
  branch_code: "001",
  account_number: "1234567",
  account_holder: "ヤマダ タロウ",
};
const katakanaPattern = /^[\p{Script=Katakana}ー・ 　]+$/u;
/** What a bank holds in an account name, before the server's normalisation (hosted_page_service.proto). */
const bankKanaPattern = /^[ァ-ヶーｦ-ﾟA-Z0-9 ().\/-]+$/u;

const state = {
  language: storedLanguage(),
  token: decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() ?? ""),
  sandbox: document.documentElement.dataset.mode === "sandbox",
  /** @type {any} the PaymentSession from InitiatePayment */
  session: undefined,
  currentStep: "",
  codeSent: false,
  codeExpiresAt: /** @type {Date | undefined} */ (undefined),
  resendAvailableAt: 0,
  resendTimer: 0,
  approving: false,
};

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

// ---------- language ----------

function storedLanguage() {
  try {
    return localStorage.getItem(languageKey) === "en" ? "en" : "ja";
  } catch {
    return "ja";
  }
}

/** The message at a dotted key in the current language, with its parameters filled in. */
function t(key, params = {}) {
  const message = key
    .split(".")
    .reduce((node, part) => (node == null ? undefined : node[part]), messages[state.language]);
  if (message === undefined) return key;
  if (typeof message !== "function") return message;
  return message(Object.fromEntries(Object.entries(params).map(([name, value]) => [name, formatParameter(value)])));
}

/** A date is formatted, and `{ key }` translated, in the language of the moment. */
function formatParameter(value) {
  if (value instanceof Date) return formatDateTime(value);
  if (value && typeof value === "object" && "key" in value) return t(value.key);
  return value;
}

/** Elements whose text is a message: re-rendered when the language changes. */
const translated = new Map();

function setText(element, key, params) {
  translated.set(element, { key, params });
  element.textContent = t(key, params);
}

function setRaw(element, text) {
  translated.delete(element);
  element.textContent = text;
}

function applyLanguage() {
  document.documentElement.lang = state.language;
  for (const [element, { key, params }] of translated) {
    if (element.isConnected) element.textContent = t(key, params);
    else translated.delete(element); // a progress item from an earlier render
  }
  const toggle = $("lang-toggle");
  toggle.textContent = t("langToggle");
  toggle.setAttribute("aria-label", t("langToggleLabel"));
  toggle.lang = state.language === "ja" ? "en" : "ja";
  const merchant = state.session?.merchant?.name;
  document.title = merchant ? `${t("title")} – ${merchant}` : t("title");
}

function switchLanguage() {
  state.language = state.language === "ja" ? "en" : "ja";
  try {
    localStorage.setItem(languageKey, state.language);
  } catch {
    // private mode: the switch still works for this page
  }
  applyLanguage();
}

// ---------- formatting ----------

/** Whole yen, as ¥1,200 in both languages. */
function formatYen(amount) {
  return `¥${Number(amount).toLocaleString("en-US")}`;
}

function formatDateTime(date) {
  return new Intl.DateTimeFormat(state.language === "ja" ? "ja-JP" : "en-GB", {
    dateStyle: "medium",
    timeStyle: "short",
  }).format(date);
}

/** Only http(s) URLs leave the page (a redirect URL is the merchant's, never a script). */
function safeUrl(url) {
  if (!url) return undefined;
  try {
    const parsed = new URL(url, location.href);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

// ---------- the Connect protocol, JSON form ----------

class RpcError extends Error {
  constructor(code, message, details = []) {
    super(message);
    this.code = code;
    this.details = details;
  }

  /** The request field the server objected to (ErrorInfo metadata, else the "field: …" message prefix). */
  get field() {
    for (const detail of this.details) {
      const field = detail?.debug?.metadata?.field ?? detail?.debug?.field;
      if (field) return String(field).split(".").pop();
    }
    const match = /^([a-z_][a-z0-9_.]*): /.exec(this.message);
    return match ? match[1].split(".").pop() : undefined;
  }

  /** The link lapsed while the customer was on the page (a step answers ERROR_TYPE_PAYMENT_LINK_EXPIRED). */
  get linkExpired() {
    return this.details.some(
      (detail) => (detail?.debug?.reason ?? detail?.debug?.code) === "ERROR_TYPE_PAYMENT_LINK_EXPIRED",
    );
  }
}

async function rpc(method, request) {
  let response;
  try {
    response = await fetch(new URL(`../payments.v1.HostedPageService/${method}`, location.href), {
      method: "POST",
      headers: { "content-type": "application/json", "connect-protocol-version": "1" },
      body: JSON.stringify({ token: state.token, ...request }),
      cache: "no-store",
      credentials: "same-origin",
    });
  } catch {
    throw new RpcError("network", "network error");
  }
  const body = await response.json().catch(() => ({}));
  if (!response.ok)
    throw new RpcError(body.code ?? "unknown", body.message ?? "", Array.isArray(body.details) ? body.details : []);
  return body;
}

function rpcErrorKey(error) {
  return `rpcError.${error.code in messages.ja.rpcError ? error.code : "other"}`;
}

/** docs/reference/contract.md#error-triggers: the trigger table's ErrorType → PaymentErrorCode, so one sentence explains both. */
const paymentErrorCodeOfErrorType = {
  ERROR_TYPE_PAYMENT_VALIDATION_FAILED: "PAYMENT_ERROR_CODE_BAD_REQUEST",
  ERROR_TYPE_PAYMENT_CHARGE_FAILED: "PAYMENT_ERROR_CODE_INTERNAL",
  ERROR_TYPE_PAYMENT_LINK_EXPIRED: "PAYMENT_ERROR_CODE_EXPIRED",
  ERROR_TYPE_PAYMENT_GATEWAY_FAILED: "PAYMENT_ERROR_CODE_REJECTED",
  ERROR_TYPE_PAYMENT_GATEWAY_UNAVAILABLE: "PAYMENT_ERROR_CODE_UNDER_MAINTENANCE",
  ERROR_TYPE_PAYMENT_CHARGE_OVER_LIMIT: "PAYMENT_ERROR_CODE_OVER_LIMIT",
  ERROR_TYPE_PAYMENT_CHARGE_REJECTED: "PAYMENT_ERROR_CODE_KYC_REQUIRED",
  ERROR_TYPE_PAYMENT_CHARGE_INSUFFICIENT_FUNDS: "PAYMENT_ERROR_CODE_INSUFFICIENT_FUNDS",
  ERROR_TYPE_PAYMENT_CUSTOMER_NOT_FOUND: "PAYMENT_ERROR_CODE_CUSTOMER_NOT_FOUND",
  ERROR_TYPE_PAYMENT_CUSTOMER_INACTIVE: "PAYMENT_ERROR_CODE_CUSTOMER_INACTIVE",
};

/** The plain-language reason for a PAYMENT_ERROR_CODE_* or ERROR_TYPE_* code. */
function reasonKey(code) {
  const paymentErrorCode = paymentErrorCodeOfErrorType[code] ?? code;
  return `paymentError.${paymentErrorCode in messages.ja.paymentError ? paymentErrorCode : "other"}`;
}

// ---------- announcements and errors ----------

function announce(key, params) {
  const live = $("live");
  live.textContent = "";
  // A fresh text node after a tick, so the same message twice is announced twice.
  setTimeout(() => setText(live, key, params), 50);
}

function showStepError(step, key, params) {
  const box = $(`${step}-error`);
  if (key) setText(box, key, params);
  else setRaw(box, "");
}

function setFieldError(input, key) {
  const message = $(`${input.name}-error`);
  if (key) {
    input.setAttribute("aria-invalid", "true");
    setText(message, key);
  } else {
    input.removeAttribute("aria-invalid");
    setRaw(message, "");
  }
}

function clearErrors(form, step) {
  for (const input of form.querySelectorAll("input[name]")) if (input.type !== "radio") setFieldError(input, "");
  showStepError(step, "");
}

/** Shows a server error next to the field it concerns when it names one, else above the form. */
async function showServerError(form, step, error) {
  if (error.linkExpired || error.code === "not_found") {
    await load(); // the expired (or unknown) link page
    return;
  }
  const input = error.field ? form.querySelector(`input[name="${error.field}"]`) : null;
  if (input && error.code === "invalid_argument") {
    setFieldError(input, fieldMessageKey(input));
    input.focus();
    return;
  }
  showStepError(step, rpcErrorKey(error));
  // A step out of order (done in another tab, or the link settled): re-read where the link stands.
  if (error.code === "failed_precondition") await load();
}

function fieldMessageKey(input) {
  if (input.dataset.kana !== undefined) return "field.kana";
  return input.name in messages.ja.field ? `field.${input.name}` : "field.invalid";
}

// ---------- input normalisation and checks ----------

const toHalfWidthDigits = (value) => value.normalize("NFKC").replace(/[\s-]/g, "");
/** Hiragana and half-width katakana become katakana; spaces are kept between names. */
const toKatakana = (value) =>
  value
    .normalize("NFKC")
    .replace(/[\u3041-\u3096]/g, (kana) => String.fromCharCode(kana.charCodeAt(0) + 0x60))
    .replace(/\s+/g, " ")
    .trim();

/** Normalises every field of the form and marks the wrong ones; returns the values, or undefined. */
function readForm(form, step) {
  clearErrors(form, step);
  const values = {};
  let firstInvalid;
  for (const input of form.querySelectorAll("input[name]")) {
    if (input.type === "radio") {
      if (input.checked) values[input.name] = input.value;
      continue;
    }
    if (input.inputMode === "numeric") input.value = toHalfWidthDigits(input.value);
    else if (input.dataset.kana !== undefined || input.dataset.bankKana !== undefined)
      input.value = toKatakana(input.value);
    else input.value = input.value.trim();
    const value = input.value;
    let problem;
    if (!value && input.required) problem = "field.required";
    else if (input.pattern && !new RegExp(`^(?:${input.pattern})$`).test(value)) problem = fieldMessageKey(input);
    else if (input.dataset.kana !== undefined && !katakanaPattern.test(value)) problem = "field.kana";
    else if (input.dataset.bankKana !== undefined && !bankKanaPattern.test(value)) problem = "field.account_holder";
    else if (input.type === "date" && !validBirthDate(value)) problem = "field.birth_date";
    if (problem) {
      setFieldError(input, problem);
      firstInvalid ??= input;
    }
    values[input.name] = value;
  }
  if (firstInvalid) {
    showStepError(step, "field.summary");
    firstInvalid.focus();
    return undefined;
  }
  return values;
}

function validBirthDate(value) {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return (
    !Number.isNaN(date.getTime()) &&
    date.toISOString().startsWith(value) &&
    value >= "1900-01-01" &&
    date.getTime() < Date.now()
  );
}

/** Runs a step's request with its submit button disabled, so a double submit sends one request. */
async function whileBusy(form, work) {
  const buttons = form.querySelectorAll("button");
  if (form.getAttribute("aria-busy") === "true") return;
  form.setAttribute("aria-busy", "true");
  buttons.forEach((button) => (button.disabled = true));
  try {
    await work();
  } finally {
    form.removeAttribute("aria-busy");
    buttons.forEach((button) => (button.disabled = false));
    updateResendButton();
  }
}

// ---------- views ----------

function showView(id) {
  for (const view of document.querySelectorAll(".view")) view.hidden = view.id !== id;
  $("main").setAttribute("aria-busy", "false");
}

function showProblem({ heading, text, backUrl, retry = false }) {
  setText($("problem-heading"), heading);
  setText($("problem-text"), text);
  const back = $("problem-back");
  const url = safeUrl(backUrl);
  back.hidden = !url;
  if (url) back.setAttribute("href", url);
  $("problem-retry").hidden = !retry;
  state.currentStep = "problem";
  showView("view-problem");
  applyLanguage();
  $("problem-heading").focus();
}

/** InitiatePayment answered result.error: an expired link, an unknown one, or a triggered error. */
function showInitiateError(error) {
  const backUrl = error.redirectUrl || error.merchant?.redirect?.failureUrl;
  if (error.errorCode === "PAYMENT_ERROR_CODE_EXPIRED") {
    showProblem({ heading: "problem.expiredHeading", text: "problem.expiredText", backUrl });
  } else if (error.errorCode === "PAYMENT_ERROR_CODE_NOT_FOUND") {
    showProblem({ heading: "problem.unknownHeading", text: "problem.unknownText" });
  } else {
    showProblem({ heading: "problem.errorHeading", text: reasonKey(error.errorCode), backUrl });
  }
}

function showLoadFailure(error) {
  if (error.code === "not_found" || error.code === "invalid_argument") {
    showProblem({ heading: "problem.unknownHeading", text: "problem.unknownText" });
  } else {
    showProblem({
      heading: "problem.networkHeading",
      text: error.code === "network" ? "problem.networkText" : rpcErrorKey(error),
      retry: true,
    });
  }
}

async function load() {
  let response;
  try {
    response = await rpc("InitiatePayment", {});
  } catch (error) {
    showLoadFailure(error);
    return;
  }
  const result = response.result ?? {};
  if (result.error) {
    showInitiateError(result.error);
    return;
  }
  state.session = result.session;
  if (state.session.detailsWithheld) {
    showProblem({ heading: "problem.finishedHeading", text: "problem.finishedText", backUrl: "" });
    return;
  }
  if (state.session.completed && state.session.error?.code === "ERROR_TYPE_PAYMENT_LINK_EXPIRED") {
    showProblem({ heading: "problem.expiredHeading", text: "problem.expiredText", backUrl: state.session.redirectUrl });
    return;
  }
  renderSummary();
  render();
}

function isContractOnly() {
  return state.session.workflow === "PAYMENT_WORKFLOW_CONTRACT" || !state.session.amount;
}

function renderSummary() {
  const { merchant = {}, amount, description, expiresAt, workflow } = state.session;
  setRaw($("merchant-name"), merchant.name ?? "");
  setRaw($("merchant-initial"), (merchant.name ?? "?").trim().charAt(0).toUpperCase());
  const logo = /** @type {HTMLImageElement} */ ($("merchant-logo"));
  const logoUrl = safeUrl(merchant.logoUrl);
  if (logoUrl) {
    // Shown once it loads; a broken logo leaves the merchant's initial in its place.
    logo.addEventListener(
      "load",
      () => {
        logo.hidden = false;
        $("merchant-initial").hidden = true;
      },
      { once: true },
    );
    logo.src = logoUrl;
  }
  if (isContractOnly()) setText($("amount"), "noCharge");
  else setRaw($("amount"), formatYen(amount));
  $("description-row").hidden = !description;
  setRaw($("description"), description ?? "");
  if (expiresAt) setText($("expires-at"), "expiresAtValue", { when: new Date(expiresAt) });
  if (workflow && messages.ja.workflow[workflow]) setText($("workflow-note"), `workflow.${workflow}`);
}

/** The steps this link needs, in order, and whether each is done. */
function stepsOf(session) {
  const steps = [{ id: "twoFactor", done: !!session.twoFactorVerified }];
  if (session.needsBankLink || session.bankLinked) steps.push({ id: "bank", done: !!session.bankLinked });
  if (session.needsKyc || session.kycSubmitted) steps.push({ id: "kyc", done: !!session.kycSubmitted });
  steps.push({ id: "approve", done: !!session.completed });
  return steps;
}

const sectionOf = {
  twoFactor: "step-two-factor",
  bank: "step-bank",
  kyc: "step-kyc",
  approve: "step-approve",
  done: "step-done",
};

function render() {
  const session = state.session;
  const steps = stepsOf(session);
  const current = session.completed ? "done" : steps.find((step) => !step.done).id;

  const progress = $("progress");
  progress.replaceChildren(
    ...steps.map((step, index) => {
      const item = document.createElement("li");
      const isCurrent = step.id === current;
      const failed = step.id === "approve" && step.done && session.chargeStatus === "CHARGE_STATUS_FAILURE";
      if (step.done) item.className = failed ? "failed" : "done";
      if (isCurrent) item.setAttribute("aria-current", "step");
      const mark = document.createElement("span");
      mark.className = "mark";
      mark.setAttribute("aria-hidden", "true");
      mark.textContent = failed ? "✕" : step.done ? "✓" : `${index + 1}`;
      const label = document.createElement("span");
      setText(label, step.id === "approve" && isContractOnly() ? "steps.approveContract" : `steps.${step.id}`);
      const status = document.createElement("span");
      status.className = "visually-hidden";
      if (step.done) setText(status, "stepDone");
      else if (isCurrent) setText(status, "stepCurrent");
      item.append(mark, " ", label, status);
      return item;
    }),
  );

  $("expires-row").hidden = !session.expiresAt || session.completed;
  for (const [step, section] of Object.entries(sectionOf)) $(section).hidden = step !== current;
  if (current === "twoFactor") renderTwoFactor();
  if (current === "bank") renderBank();
  if (current === "approve") renderApprove();
  if (current === "done") renderDone(session.chargeStatus, session.redirectUrl, session.error?.code);

  showView("view-payment");
  applyLanguage();
  if (current !== state.currentStep) {
    state.currentStep = current;
    // Move focus to the new step's heading, so keyboard and screen-reader users start there.
    $(sectionOf[current]).querySelector(".step-heading").focus();
  }
}

// ---------- step: two-factor code ----------

function renderTwoFactor() {
  const email = state.session.emailHint || "";
  if (state.codeSent) setText($("two-factor-intro"), "twoFactor.sentIntro", { email, until: state.codeExpiresAt });
  else setText($("two-factor-intro"), "twoFactor.intro", { email });
  $("send-code").hidden = state.codeSent;
  $("form-two-factor").hidden = !state.codeSent;
  updateResendButton();
}

async function sendCode(isResend) {
  showStepError("two-factor", "");
  try {
    const response = await rpc("SendTwoFactorCode", {});
    state.codeSent = true;
    if (response.emailHint) state.session.emailHint = response.emailHint;
    state.codeExpiresAt = response.expiresAt ? new Date(response.expiresAt) : undefined;
    startResendCountdown(response.resendAvailableAt);
    announce(isResend ? "twoFactor.resent" : "twoFactor.sent");
  } catch (error) {
    // Throttled: a code was sent a moment ago (before a reload, say), so the form is still useful.
    if (error.code === "resource_exhausted") state.codeSent = true;
    await showServerError($("form-two-factor"), "two-factor", error);
    if (state.currentStep !== "twoFactor") return;
  }
  renderTwoFactor();
  const codeInput = /** @type {HTMLInputElement} */ ($("code"));
  if (state.codeSent) {
    codeInput.value = "";
    codeInput.focus();
  }
}

function startResendCountdown(resendAvailableAt) {
  // The server enforces the throttle; this only shows it (capped, in case the clocks disagree).
  const wait = resendAvailableAt ? Math.min(Math.max(Date.parse(resendAvailableAt) - Date.now(), 0), 10 * 60_000) : 0;
  state.resendAvailableAt = Date.now() + wait;
  clearInterval(state.resendTimer);
  state.resendTimer = setInterval(updateResendButton, 1000);
  updateResendButton();
}

function updateResendButton() {
  const button = /** @type {HTMLButtonElement} */ ($("resend-code"));
  const seconds = Math.ceil((state.resendAvailableAt - Date.now()) / 1000);
  const waiting = seconds > 0;
  button.disabled = waiting || $("form-two-factor").getAttribute("aria-busy") === "true";
  if (waiting) setText($("resend-wait"), "twoFactor.resendIn", { seconds });
  else {
    setRaw($("resend-wait"), "");
    clearInterval(state.resendTimer);
  }
}

async function verifyCode(form) {
  const values = readForm(form, "two-factor");
  if (!values) return;
  const codeInput = /** @type {HTMLInputElement} */ ($("code"));
  try {
    const response = await rpc("VerifyTwoFactorCode", { code: values.code });
    if (response.verified) {
      state.session.twoFactorVerified = true;
      clearInterval(state.resendTimer);
      announce("twoFactor.verified");
      render();
      return;
    }
    const attempts = response.attemptsLeft ?? 0;
    codeInput.value = "";
    setFieldError(codeInput, "");
    codeInput.setAttribute("aria-invalid", "true");
    setText($("code-error"), attempts > 0 ? "twoFactor.wrong" : "twoFactor.noAttempts", { attempts });
    codeInput.focus();
  } catch (error) {
    if (error.code !== "invalid_argument" && error.code !== "failed_precondition") {
      // Link lapsed, server busy, network: not about the code itself.
      await showServerError(form, "two-factor", error);
      return;
    }
    codeInput.setAttribute("aria-invalid", "true");
    setText($("code-error"), error.code === "invalid_argument" ? "field.code" : "twoFactor.unusable");
    codeInput.focus();
    // Verified in another tab, say: the server's view of the link decides the step.
    if (error.code === "failed_precondition") await load();
  }
}

// ---------- step: bank account ----------

function renderBank() {
  const note = $("bank-sandbox-note");
  note.hidden = !state.sandbox;
  if (!state.sandbox) return;
  const form = /** @type {HTMLFormElement} */ ($("form-bank"));
  for (const [name, value] of Object.entries(sandboxBankAccount)) {
    const input = /** @type {HTMLInputElement} */ (form.elements.namedItem(name));
    if (!input.value) input.value = value;
  }
}

async function linkBank(form) {
  if (!(await submitStep(form, "bank", "LinkBankAccount"))) return;
  state.session.bankLinked = true;
  announce("bank.linked");
  render();
}

// ---------- step: KYC ----------

async function submitKyc(form) {
  const response = await submitStep(form, "kyc", "SubmitKyc");
  if (!response) return;
  state.session.kycSubmitted = true;
  const status = response.kycStatus in messages.ja.kyc.status ? response.kycStatus : "other";
  announce(`kyc.status.${status}`);
  render();
}

/** The form's fields as the request message's JSON: the inputs carry the proto field names. */
const asRequest = (values) =>
  Object.fromEntries(
    Object.entries(values).map(([name, value]) => [
      name.replace(/_([a-z])/g, (_, letter) => letter.toUpperCase()),
      value,
    ]),
  );

/** Checks a step's form and sends it; the answer, or undefined when a field or the server said no. */
async function submitStep(form, step, method) {
  const values = readForm(form, step);
  if (!values) return undefined;
  try {
    return await rpc(method, asRequest(values));
  } catch (error) {
    await showServerError(form, step, error);
    return undefined;
  }
}

// ---------- step: approve ----------

function renderApprove() {
  const merchant = state.session.merchant?.name ?? "";
  const amount = formatYen(state.session.amount ?? 0);
  const contractOnly = isContractOnly();
  setText($("approve-heading"), contractOnly ? "approve.headingContract" : "approve.heading");
  setText($("approve-intro"), contractOnly ? "approve.introContract" : "approve.intro", { amount, merchant });
  if (!state.approving) setText($("approve"), contractOnly ? "approve.buttonContract" : "approve.button", { amount });
}

async function approve() {
  // Disabled before the request starts: a double click sends one request (the server also
  // answers a repeated approval with the first outcome, for reloads and second tabs).
  if (state.approving) return;
  state.approving = true;
  const button = /** @type {HTMLButtonElement} */ ($("approve"));
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  setText(button, "approve.working");
  showStepError("approve", "");
  announce("approve.working");
  let result;
  try {
    result = (await rpc("ApprovePayment", {})).result ?? {};
  } catch (error) {
    await approvalNotDone(rpcErrorKey(error));
    return;
  }
  if (result.success) {
    const { chargeStatus, redirectUrl, error } = result.success;
    state.session.completed = true;
    state.session.chargeStatus = chargeStatus;
    finish(chargeStatus, redirectUrl, error?.code);
    return;
  }
  const refusal = result.error ?? {};
  const backUrl = refusal.redirectUrl || state.session.merchant?.redirect?.failureUrl;
  if (refusal.errorCode === "PAYMENT_ERROR_CODE_EXPIRED") {
    showProblem({ heading: "problem.expiredHeading", text: "problem.expiredText", backUrl });
  } else if (refusal.redirectUrl) {
    // A failed payment (the merchant's failure_url is where it ends).
    state.session.completed = true;
    state.session.chargeStatus = "CHARGE_STATUS_FAILURE";
    finish("CHARGE_STATUS_FAILURE", refusal.redirectUrl, refusal.errorCode);
  } else {
    // Refused before anything was charged (a step missing, say).
    await approvalNotDone(reasonKey(refusal.errorCode));
  }
}

/** The approval did not happen: say why, and let the server's view of the link decide what is next. */
async function approvalNotDone(reason) {
  const button = /** @type {HTMLButtonElement} */ ($("approve"));
  state.approving = false;
  button.disabled = false;
  button.removeAttribute("aria-busy");
  renderApprove();
  showStepError("approve", reason);
  await load();
  if (state.currentStep === "approve") button.focus();
}

/**
 * The outcome, then the merchant's page at once (success_url, or failure_url whose error_code
 * lets the merchant explain): no timed redirect that could rush anyone. A reload shows the outcome.
 */
function finish(chargeStatus, redirectUrl, reasonCode) {
  render();
  renderDone(chargeStatus, redirectUrl, reasonCode);
  const url = safeUrl(redirectUrl);
  if (url) location.assign(url);
}

function renderDone(chargeStatus, redirectUrl, reasonCode) {
  const section = $("step-done");
  const failed = chargeStatus === "CHARGE_STATUS_FAILURE";
  section.className = `card step ${failed ? "done-failed" : "done-ok"}`;
  let heading = "done.success";
  if (failed) heading = "done.failed";
  else if (chargeStatus === "CHARGE_STATUS_PENDING" || chargeStatus === "CHARGE_STATUS_WAITING_EKYC")
    heading = "done.pending";
  else if (isContractOnly()) heading = "done.successContract";
  setText($("done-heading"), heading);
  const url = safeUrl(redirectUrl);
  if (failed)
    setText($("done-text"), state.approving ? "done.failedRedirecting" : reasonKey(reasonCode), {
      reason: { key: reasonKey(reasonCode) },
    });
  else if (state.approving) setText($("done-text"), "done.redirecting");
  else setText($("done-text"), chargeStatus === "CHARGE_STATUS_WAITING_EKYC" ? "done.waitingKyc" : "done.text");
  const link = $("done-continue");
  link.hidden = !url;
  if (url) link.setAttribute("href", url);
}

// ---------- wiring ----------

function start() {
  for (const element of document.querySelectorAll("[data-i18n]")) setText(element, element.getAttribute("data-i18n"));
  $("sandbox-badge").hidden = !state.sandbox;
  const toggle = $("lang-toggle");
  toggle.hidden = false;
  toggle.addEventListener("click", switchLanguage);
  $("problem-retry").addEventListener("click", () => {
    showView("view-loading");
    void load();
  });
  $("send-code").addEventListener("click", () => whileBusy($("step-two-factor"), () => sendCode(false)));
  $("resend-code").addEventListener("click", () => whileBusy($("form-two-factor"), () => sendCode(true)));
  $("approve").addEventListener("click", () => void approve());
  const forms = { "form-two-factor": verifyCode, "form-bank": linkBank, "form-kyc": submitKyc };
  for (const [id, submit] of Object.entries(forms)) {
    const form = /** @type {HTMLFormElement} */ ($(id));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void whileBusy(form, () => submit(form));
    });
  }
  /** @type {HTMLInputElement} */ ($("birth_date")).max = new Date().toISOString().slice(0, 10);
  applyLanguage();
  if (!state.token || state.token === "assets")
    showProblem({ heading: "problem.unknownHeading", text: "problem.unknownText" });
  else void load();
}

start();
