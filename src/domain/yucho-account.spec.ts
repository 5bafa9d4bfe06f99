import { describe, expect, it } from "vitest";
import { BankAccountType } from "../../gen/payments/v1/enums_pb.js";
import { asciiDigits, yuchoBranchName, yuchoToZengin } from "./yucho-account.js";

// Published examples of Japan Post's conversion (passbook samples and its own converter's answers).
describe("ゆうちょ 記号・番号 → 店番・口座番号", () => {
  it.each([
    // 通常貯金: 2nd and 3rd digits of the 記号 then 8; the 番号 without its final 1, zero-padded.
    ["10530", "12345671", "058", "〇五八", BankAccountType.ORDINARY, "1234567"],
    ["11940", "12345671", "198", "一九八", BankAccountType.ORDINARY, "1234567"],
    ["11940", "1234561", "198", "一九八", BankAccountType.ORDINARY, "0123456"],
    ["17300", "19927651", "738", "七三八", BankAccountType.ORDINARY, "1992765"],
    // 振替口座: 2nd and 3rd digits then 9, 当座; the 番号 as it is, zero-padded.
    ["01940", "123456", "199", "一九九", BankAccountType.CURRENT, "0123456"],
    ["00530", "12345", "059", "〇五九", BankAccountType.CURRENT, "0012345"],
  ])("%s-%s → %s (%s) %s %s", (kigo, bango, branchCode, branchName, accountType, accountNumber) => {
    expect(yuchoToZengin(kigo, bango)).toEqual({
      ok: true,
      account: { branchCode, branchName, accountType, accountNumber },
    });
  });

  it("accepts full-width digits as typed on a Japanese keyboard", () => {
    expect(asciiDigits("１０５３０")).toBe("10530");
    expect(yuchoToZengin("１０５３０", "１２３４５６７１")).toMatchObject({ ok: true, account: { branchCode: "058" } });
  });

  it("refuses what no passbook shows, naming the field", () => {
    expect(yuchoToZengin("2053", "1")).toMatchObject({ ok: false, field: "kigo", problem: "kigoFormat" });
    expect(yuchoToZengin("20530", "12345671")).toMatchObject({ ok: false, field: "kigo" });
    expect(yuchoToZengin("10530", "")).toMatchObject({ ok: false, field: "bango", problem: "bangoFormat" });
    expect(yuchoToZengin("10530", "123456789")).toMatchObject({ ok: false, field: "bango" });
    // An ordinary account's 番号 ends in 1.
    expect(yuchoToZengin("10530", "12345672")).toMatchObject({ ok: false, field: "bango", problem: "bangoCheckDigit" });
    // A 振替口座 番号 longer than 7 digits has no Zengin form.
    expect(yuchoToZengin("00530", "12345678")).toMatchObject({ ok: false, field: "bango", problem: "bangoTooLong" });
  });

  it("names a branch by its digits in kanji numerals", () => {
    expect(yuchoBranchName("408")).toBe("四〇八");
  });
});
