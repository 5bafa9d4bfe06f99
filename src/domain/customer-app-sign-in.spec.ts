import { describe, expect, it } from "vitest";
import { codesOfLastDay, customerSignInRules, signInCodeMessage, signInCodeOwner } from "./customer-app-sign-in.js";
import type { OneTimeCodeRecord } from "./one-time-code.js";

const now = new Date("2026-11-25T00:00:00Z");
const code = (ageMs: number): OneTimeCodeRecord => ({
  id: `otc-${ageMs}`,
  codeHash: "",
  attempts: 0,
  expiresAt: now,
  usedAt: null,
  createdAt: new Date(now.getTime() - ageMs),
});

describe("customer-app sign-in codes", () => {
  it("are owned by the normalised e-mail", () => {
    expect(signInCodeOwner("  Taro@Example.JP ")).toBe("app:taro@example.jp");
  });

  it("count against the daily limit only while less than a day old", () => {
    const codes = [code(0), code(customerSignInRules.dayMs - 1), code(customerSignInRules.dayMs)];
    expect(codesOfLastDay(codes, now).map((c) => c.id)).toEqual(["otc-0", `otc-${customerSignInRules.dayMs - 1}`]);
  });

  it("are mailed in Japanese first, then English, with the code", () => {
    const { subject, body } = signInCodeMessage("123456");
    expect(subject).toContain("ログインコード");
    expect(body.indexOf("確認コードは 123456")).toBeLessThan(body.indexOf("Your code"));
  });
});
