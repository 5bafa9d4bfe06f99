import { normalizeEmail } from "./customer.js";
import { minutesMs } from "./duration.js";
import { oneTimeCodeRules } from "./one-time-code.js";

/** The owner key of an e-mail's sign-up codes in the one-time code store (beside the customer app's `app:`). */
export function signUpCodeOwner(email: string): string {
  return `signup:${normalizeEmail(email)}`;
}

/** The e-mail carrying a sign-up code, in Japanese with an English line. */
export function signUpCodeMessage(code: string): { subject: string; body: string } {
  const minutes = oneTimeCodeRules.validityMs / minutesMs(1);
  return {
    subject: "【furikomi】新規登録の確認コード / Sign-up code",
    body: [
      `furikomi の新規登録の確認コードは ${code} です。`,
      `有効期限は${minutes}分です。心当たりがない場合は、このメールを無視してください。`,
      "",
      `Your code to sign up to furikomi is ${code}.`,
      `It is valid for ${minutes} minutes. If you did not ask for it, ignore this message.`,
    ].join("\n"),
  };
}
