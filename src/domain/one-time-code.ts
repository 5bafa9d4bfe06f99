import { createHash, randomInt, timingSafeEqual } from "node:crypto";
import { limits } from "./limits.js";
import { minutesMs } from "./duration.js";
import { newId } from "./ids.js";

/** Two-factor code rules of the hosted page (docs/guide/hosted-page.md). */
export const oneTimeCodeRules = Object.freeze({
  validityMs: limits.oneTimeCodeValidityMs,
  maxAttempts: limits.oneTimeCodeAttemptsMax,
  resendIntervalMs: limits.oneTimeCodeResendIntervalMs,
  /** Codes one link may send in all: the page cannot be used to flood a mailbox. */
  maxCodesPerLink: limits.oneTimeCodeSendsPerLinkMax,
});

/** A stored code: only its hash is kept. */
export interface OneTimeCodeRecord {
  id: string;
  codeHash: string;
  attempts: number;
  expiresAt: Date;
  usedAt: Date | null;
  createdAt: Date;
}

/** Six random digits. */
export function newOneTimeCode(): string {
  return randomInt(0, 1_000_000).toString().padStart(6, "0");
}

/** A code sent now, stored as its hash, valid for `oneTimeCodeRules.validityMs`. */
export function storedOneTimeCode(code: string, now: Date): OneTimeCodeRecord {
  const id = newId("otc");
  return {
    id,
    codeHash: hashOneTimeCode(id, code),
    attempts: 0,
    expiresAt: new Date(now.getTime() + oneTimeCodeRules.validityMs),
    usedAt: null,
    createdAt: now,
  };
}

/** Salted with the code's own id, so equal codes never share a hash. */
export function hashOneTimeCode(codeId: string, code: string): string {
  return createHash("sha256").update(`${codeId}:${code}`).digest("hex");
}

export function codeMatches(record: Pick<OneTimeCodeRecord, "id" | "codeHash">, code: string): boolean {
  const expected = Buffer.from(record.codeHash, "hex");
  const actual = Buffer.from(hashOneTimeCode(record.id, code), "hex");
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Why a code can no longer be tried, or undefined while it can. Never accepted twice: a used code is spent. */
export function codeUnusableReason(record: OneTimeCodeRecord, now: Date): string | undefined {
  if (record.usedAt) return "this code has already been used; ask for a new one";
  if (now.getTime() >= record.expiresAt.getTime()) return "this code has expired; ask for a new one";
  if (record.attempts >= oneTimeCodeRules.maxAttempts) return "too many wrong attempts; ask for a new one";
  return undefined;
}

/** When the next code may be sent after one sent at `lastSentAt`. */
export function resendAvailableAt(lastSentAt: Date | undefined, now: Date): Date {
  if (!lastSentAt) return now;
  return new Date(Math.max(now.getTime(), lastSentAt.getTime() + oneTimeCodeRules.resendIntervalMs));
}

/** The e-mail carrying a code, in Japanese with an English line. */
export function oneTimeCodeMessage(merchantName: string, code: string): { subject: string; body: string } {
  const minutes = oneTimeCodeRules.validityMs / minutesMs(1);
  return {
    // The page calls it 確認コード / confirmation code too (src/web/pay/messages.ts).
    subject: `【${merchantName}】お支払いの確認コード / Confirmation code`,
    body: [
      `${merchantName} へのお支払いの確認コードは ${code} です。`,
      `有効期限は${minutes}分です。このコードを他の人に教えないでください。`,
      "",
      `Your confirmation code for the payment to ${merchantName} is ${code}.`,
      `It is valid for ${minutes} minutes. Never share it with anyone.`,
    ].join("\n"),
  };
}
