import { describe, expect, it } from "vitest";
import {
  describeZenginCharacters,
  isZenginCharacter,
  parseWidenedCharacters,
  refusedZenginCharacter,
  zenginFieldCharacters,
} from "./zengin-characters.js";

describe("what each Zengin field may carry (the 全銀協 rules)", () => {
  it("gives names of parties kana without ｦ or small kana, A–Z, 0–9, space and ( ) - .", () => {
    for (const field of ["consignorName", "holder", "payee"]) expect(zenginFieldCharacters[field]).toBe("party-name");
    for (const char of [..."ｱﾝﾞﾟAZ09 ()-."]) expect(isZenginCharacter(char, "party-name")).toBe(true);
    for (const char of [..."ｦｧｯｬ/a・,"]) expect(isZenginCharacter(char, "party-name")).toBe(false);
    expect(refusedZenginCharacter("ﾔﾏﾀﾞ ﾀﾛｳ", "party-name")).toBeUndefined();
    expect(refusedZenginCharacter("ﾔﾏﾀﾞ/ﾀﾛｦ", "party-name")).toBe("/");
  });

  it("gives bank and branch names kana, letters, digits and - only", () => {
    for (const field of ["bankName", "branchName"]) expect(zenginFieldCharacters[field]).toBe("bank-name");
    expect(refusedZenginCharacter("ﾐﾂﾋﾞｼ-UFJ", "bank-name")).toBeUndefined();
    for (const char of [..." ().ｦ/"]) expect(isZenginCharacter(char, "bank-name")).toBe(false);
  });

  it("lets a consignor's bank widen the rule with characters it publishes, and no others", () => {
    expect(isZenginCharacter("/", "party-name", "/")).toBe(true);
    expect(describeZenginCharacters("party-name", "/")).toBe(
      "katakana (no ｦ or small kana), A–Z, 0–9, space and ( ) - . /",
    );
    expect(parseWidenedCharacters(" / ( ")).toEqual({ ok: true, value: "(/" });
    expect(parseWidenedCharacters("/&")).toEqual({ ok: false, reason: '"&" is not one of ( ) - . /' });
    expect(parseWidenedCharacters("ｦ").ok).toBe(false);
  });
});
