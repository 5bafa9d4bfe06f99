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
    ["ＡＢＣ（カ）１．／－", "ABC(ｶ)1./-"],
    ["  ヤマダ  ", "ﾔﾏﾀﾞ"],
  ])("%s → %s", (input, bankForm) => {
    expect(normaliseBankKana(input)).toEqual({ ok: true, value: bankForm });
  });

  it.each(["山田", "やまだ", "yamada", "ヤマダ・タロウ", "ヰ", "ヤマダ!"])("refuses %s", (input) => {
    expect(normaliseBankKana(input).ok).toBe(false);
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
