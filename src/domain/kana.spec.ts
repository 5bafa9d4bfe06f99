import { describe, expect, it } from "vitest";
import { normaliseBankKana, requireBankAccountHolder } from "./kana.js";
import { PaymentFailure } from "./payment-failure.js";

describe("normaliseBankKana", () => {
  it.each([
    ["ヤマダ タロウ", "ﾔﾏﾀﾞ ﾀﾛｳ"],
    ["キャッシュ　ミホ", "ｷﾔﾂｼﾕ ﾐﾎ"],
    ["ヴァイオリン", "ｳﾞｱｲｵﾘﾝ"],
    ["コーヒー", "ｺ-ﾋ-"],
    ["ﾊﾟﾝ ｺｳｼﾞｮｳ", "ﾊﾟﾝ ｺｳｼﾞﾖｳ"],
    ["ｷｬｯｼｭ", "ｷﾔﾂｼﾕ"],
    ["ＡＢＣ（カ）１．－", "ABC(ｶ)1.-"],
    ["  ヤマダ  ", "ﾔﾏﾀﾞ"],
    // Hiragana is converted, as the guide says (issue #34: the CLI and LinkBankAccount refused it).
    ["ふりこみ しょうじ", "ﾌﾘｺﾐ ｼﾖｳｼﾞ"],
    ["やまだ たろう", "ﾔﾏﾀﾞ ﾀﾛｳ"],
    // ヰ, ヱ and ヲ as ｲ, ｴ and ｵ: ｦ is not in a name's set.
    ["ヰヱヲ", "ｲｴｵ"],
    ["ゐゑを", "ｲｴｵ"],
    ["ｦｶﾞﾜ", "ｵｶﾞﾜ"],
  ])("%s → %s", (input, bankForm) => {
    expect(normaliseBankKana(input)).toEqual({ ok: true, value: bankForm });
  });

  it.each(["山田", "yamada", "ヤマダ・タロウ", "ヤマダ!"])("refuses %s", (input) => {
    expect(normaliseBankKana(input).ok).toBe(false);
  });

  it("names the character the rules refuse: / in a name, unless the consignor's bank accepts it", () => {
    expect(normaliseBankKana("ﾔﾏﾀﾞ/ﾀﾛｳ")).toEqual({
      ok: false,
      reason:
        '"/" cannot be used in a name in a Zengin file: use katakana (no ｦ or small kana), A–Z, 0–9, space and ( ) - .',
    });
    expect(normaliseBankKana("ヤマダ／タロウ", 30, { widened: "/" })).toEqual({ ok: true, value: "ﾔﾏﾀﾞ/ﾀﾛｳ" });
    expect(normaliseBankKana("ヤマダ・タロウ")).toMatchObject({
      reason: expect.stringMatching(/^"・" cannot be used/),
    });
  });

  it("writes bank and branch names with - only: ( becomes -, ) is dropped, space and . are refused", () => {
    expect(normaliseBankKana("ホンテン（エイギョウブ）", 15, { rule: "bank-name" })).toEqual({
      ok: true,
      value: "ﾎﾝﾃﾝ-ｴｲｷﾞﾖｳﾌﾞ",
    });
    expect(normaliseBankKana("ﾐﾂﾋﾞｼ-UFJ", 15, { rule: "bank-name" })).toEqual({ ok: true, value: "ﾐﾂﾋﾞｼ-UFJ" });
    expect(normaliseBankKana("ｼﾌﾞﾔ ﾆｼ", 15, { rule: "bank-name" })).toMatchObject({
      reason: '" " cannot be used in a bank or branch name: use katakana (no ｦ or small kana), A–Z, 0–9 and -',
    });
    expect(normaliseBankKana("ﾎﾝﾃﾝ.", 15, { rule: "bank-name" }).ok).toBe(false);
  });

  it("counts length in the half-width form, at most 30", () => {
    expect(normaliseBankKana("ガ".repeat(15))).toEqual({ ok: true, value: "ｶﾞ".repeat(15) });
    expect(normaliseBankKana("ガ".repeat(15) + "ア").ok).toBe(false);
  });
});

describe("requireBankAccountHolder", () => {
  it("throws VALIDATION_FAILED naming the field", () => {
    const failure = (() => {
      try {
        requireBankAccountHolder("山田");
      } catch (error) {
        return error as PaymentFailure;
      }
    })();
    expect(failure).toBeInstanceOf(PaymentFailure);
    expect(failure).toMatchObject({ code: "ERROR_TYPE_PAYMENT_VALIDATION_FAILED", field: "account_holder" });
    expect(failure?.message).toMatch(/^account_holder: /);
  });
});
