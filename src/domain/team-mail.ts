import type { RoleName } from "./dashboard-role.js";
import { formatJstDateTime } from "./display-format.js";

/**
 * The e-mails of the team's links (docs/guide/dashboard.md#the-team), Japanese first: who invited
 * whom to which merchant, as what, what to do and until when; the link on a line of its own.
 */

const roleJa: Readonly<Record<RoleName, string>> = Object.freeze({
  owner: "オーナー",
  admin: "管理者",
  operator: "オペレーター",
  viewer: "閲覧者",
});

export interface MailText {
  readonly subject: string;
  readonly body: string;
}

export function invitationMail(input: {
  merchantName: string;
  inviter: string;
  role: RoleName;
  url: string;
  expiresAt: Date;
}): MailText {
  const until = formatJstDateTime(input.expiresAt);
  return {
    subject: `【furikomi】${input.merchantName} のダッシュボードへの招待`,
    body: [
      `${input.inviter} さんから、${input.merchantName} の furikomi ダッシュボードに「${roleJa[input.role]}」として招待されました。`,
      "",
      "次のリンクを開き、パスワードを決めて参加してください。",
      "参加したら、最初に2段階認証(認証アプリ)を設定していただきます。",
      "",
      input.url,
      "",
      `このリンクは ${until}(日本時間)まで、1回だけ使えます。心当たりがない場合は、このメールを破棄してください。`,
      "",
      "---",
      `${input.inviter} invited you to the furikomi dashboard of ${input.merchantName} as ${input.role}.`,
      "Open the link above to choose a password and join; you will set up two-step verification first.",
      `The link works once, until ${until} JST.`,
    ].join("\n"),
  };
}

export function passwordResetMail(input: { merchantName: string; url: string; expiresAt: Date }): MailText {
  const until = formatJstDateTime(input.expiresAt);
  return {
    subject: `【furikomi】${input.merchantName} のダッシュボード: パスワードの再設定`,
    body: [
      `${input.merchantName} の furikomi ダッシュボードのパスワードを再設定するリンクです。`,
      "次のリンクを開き、新しいパスワードを決めてください。",
      "",
      input.url,
      "",
      `このリンクは ${until}(日本時間)まで、1回だけ使えます。心当たりがない場合は、このメールを破棄してください。`,
      "",
      "---",
      `A link to set a new password for the furikomi dashboard of ${input.merchantName}: it works once, until ${until} JST.`,
    ].join("\n"),
  };
}
