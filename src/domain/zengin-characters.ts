/**
 * What each Zengin field may carry (docs/guide/direct-debit-files.md#characters-in-names): the
 * 全銀協 rules narrow the JIS X 0201 set a file is written in (zengin-record.ts) field by field.
 * Names of parties take half-width katakana (without ｦ and small kana), A–Z, 0–9, space and
 * `( ) - .`; bank and branch names take kana, letters, digits and `-` only. A consignor whose
 * bank publishes a wider set widens the names of its files with some of `( ) - . /`.
 */
export type ZenginCharacters = "party-name" | "bank-name";

/** The fields of the 口座振替 and 総合振込 layouts that carry text, and the rule of each. */
export const zenginFieldCharacters: Readonly<Record<string, ZenginCharacters>> = Object.freeze({
  consignorName: "party-name", // 委託者名, and 振込依頼人名 in a 総合振込 header
  holder: "party-name", // 預金者名
  payee: "party-name", // 受取人名
  bankName: "bank-name", // 取引銀行名, 引落銀行名, 被仕向銀行名
  branchName: "bank-name", // 取引支店名, 引落支店名, 被仕向支店名
});

/** Half-width katakana a name may carry: ｱ–ﾝ (no ｦ, no small ｧ–ｯ) and the voiced marks ﾞﾟ. */
const kana = /^[ｱ-ﾝﾞﾟ]$/u;
const letterOrDigit = /^[A-Z0-9]$/;

/** The symbols each rule allows besides kana, letters and digits. */
const symbolsOf: Readonly<Record<ZenginCharacters, string>> = Object.freeze({
  "party-name": " ()-.",
  "bank-name": "-",
});

/** The characters a consignor setting may add, where its bank publishes them (all in JIS X 0201). */
export const widenableCharacters = "()-./";

/** The rule in words, for messages: "katakana, A–Z, 0–9, space and ( ) - ." and so on. */
export function describeZenginCharacters(rule: ZenginCharacters, widened = ""): string {
  const symbols = [...new Set([...symbolsOf[rule], ...widened])].filter((symbol) => symbol !== " ");
  const space = rule === "party-name" ? ", space" : "";
  return `katakana (no ｦ or small kana), A–Z, 0–9${space} and ${symbols.join(" ")}`;
}

/** True when one half-width character may be written in a field of the rule (with the consignor's additions). */
export function isZenginCharacter(char: string, rule: ZenginCharacters, widened = ""): boolean {
  return kana.test(char) || letterOrDigit.test(char) || symbolsOf[rule].includes(char) || widened.includes(char);
}

/** The first character of a half-width value that the rule refuses, or undefined. */
export function refusedZenginCharacter(value: string, rule: ZenginCharacters, widened = ""): string | undefined {
  return [...value].find((char) => !isZenginCharacter(char, rule, widened));
}

/** A consignor's additions, checked: only characters of `widenableCharacters`, each once. */
export function parseWidenedCharacters(input: string): { ok: true; value: string } | { ok: false; reason: string } {
  const chars = [...new Set(input.replace(/\s+/g, ""))];
  const wrong = chars.find((char) => !widenableCharacters.includes(char));
  if (wrong) return { ok: false, reason: `"${wrong}" is not one of ${[...widenableCharacters].join(" ")}` };
  return { ok: true, value: [...widenableCharacters].filter((char) => chars.includes(char)).join("") };
}
