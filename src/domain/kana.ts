import { validationFailure } from "./payment-failure.js";
import { limits } from "./limits.js";
import { describeZenginCharacters, refusedZenginCharacter, type ZenginCharacters } from "./zengin-characters.js";

/**
 * Account holder names as Japanese banks hold them (the 全銀協 rules for names, zengin-characters.ts):
 * half-width uppercase katakana with voiced marks (ﾞﾟ), A–Z, 0–9, space and ( ) - ., at most 30
 * characters. Customers type hiragana or full-width katakana, so the name is normalised first: to
 * katakana, small kana to full size (ｯ → ﾂ), the long-vowel mark ー to "-", full-width letters,
 * digits and spaces to ASCII, then half-width.
 */
export const accountHolderMaxLength = limits.accountHolderLengthMax;

/** Small kana and the full-size kana banks write in their place (ｯ → ﾂ). */
export const fullSizeOfSmall: Readonly<Record<string, string>> = Object.freeze({
  ァ: "ア",
  ィ: "イ",
  ゥ: "ウ",
  ェ: "エ",
  ォ: "オ",
  ッ: "ツ",
  ャ: "ヤ",
  ュ: "ユ",
  ョ: "ヨ",
  ヮ: "ワ",
  ヵ: "カ",
  ヶ: "ケ",
});

const plainKana = "アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワヲン";
const halfWidthKana = "ｱｲｳｴｵｶｷｸｹｺｻｼｽｾｿﾀﾁﾂﾃﾄﾅﾆﾇﾈﾉﾊﾋﾌﾍﾎﾏﾐﾑﾒﾓﾔﾕﾖﾗﾘﾙﾚﾛﾜｦﾝ";
const voiced = "ガギグゲゴザジズゼゾダヂヅデドバビブベボ";
const voicedBase = "カキクケコサシスセソタチツテトハヒフヘホ";
const semiVoiced = "パピプペポ";
const semiVoicedBase = "ハヒフヘホ";

/** Full-width katakana (after small → full size) to its half-width spelling; undefined if none. */
function halfWidthOf(char: string): string | undefined {
  if (plainKana.includes(char)) return halfWidthKana[plainKana.indexOf(char)];
  if (voiced.includes(char)) return `${halfWidthOf(voicedBase[voiced.indexOf(char)])}ﾞ`;
  if (semiVoiced.includes(char)) return `${halfWidthOf(semiVoicedBase[semiVoiced.indexOf(char)])}ﾟ`;
  if (char === "ヴ") return "ｳﾞ";
  return undefined;
}

/**
 * Kana the 全銀協 rules write as another (docs/guide/direct-debit-files.md#characters-in-names):
 * ヰ and ヱ as ｲ and ｴ, ヲ as ｵ (ｦ is not in a name's set), as the bank's own record reads them.
 */
const plainFormOf: Readonly<Record<string, string>> = Object.freeze({ ヰ: "イ", ヱ: "エ", ヲ: "オ" });

/** Hiragana (ぁ–ゖ) as katakana: customers type either. */
function katakanaOf(char: string): string {
  const code = char.charCodeAt(0);
  return code >= 0x3041 && code <= 0x3096 ? String.fromCharCode(code + 0x60) : char;
}

/** The dashes people type for ー and -, all written as "-". */
const dashes = /^[ー－‐―−]$/u;

export type BankKanaResult = { ok: true; value: string } | { ok: false; reason: string };

export interface BankKanaOptions {
  /** The field's rule (zengin-characters.ts): a party's name (default) or a bank or branch name. */
  readonly rule?: ZenginCharacters;
  /** Characters the consignor's bank also accepts in names (its consignor setting). */
  readonly widened?: string;
}

/**
 * Normalises a name to the bank's form and checks it against the field's rule: hiragana to
 * katakana, small kana full size, ヰヱヲ as ｲｴｵ, dashes as "-", then half-width; in a bank or
 * branch name (the bank master writes some with brackets) "(" becomes "-" and ")" is dropped.
 * A character left outside the rule is named in the reason.
 *
 * @example normaliseBankKana("きゃっしゅ ミホ") // { ok: true, value: "ｷﾔﾂｼﾕ ﾐﾎ" }
 */
export function normaliseBankKana(
  input: string,
  maxLength = accountHolderMaxLength,
  options: BankKanaOptions = {},
): BankKanaResult {
  const rule = options.rule ?? "party-name";
  const widened = options.widened ?? "";
  // NFKC turns half-width kana full-width (composing ｶﾞ into ガ) and full-width ASCII plain, so
  // every spelling goes through the one full-width table below.
  const composed = input.normalize("NFKC").trim();
  let value = "";
  for (const char of composed) {
    const katakana = katakanaOf(char);
    const full = plainFormOf[katakana] ?? fullSizeOfSmall[katakana] ?? katakana;
    let mapped = dashes.test(full) ? "-" : (halfWidthOf(full) ?? full);
    if (rule === "bank-name" && !widened.includes(mapped)) mapped = mapped === "(" ? "-" : mapped === ")" ? "" : mapped;
    const refused = refusedZenginCharacter(mapped, rule, widened);
    if (refused !== undefined) {
      const where = rule === "party-name" ? "a name in a Zengin file" : "a bank or branch name";
      return {
        ok: false,
        reason: `"${char}" cannot be used in ${where}: use ${describeZenginCharacters(rule, widened)}`,
      };
    }
    value += mapped;
  }
  if (value.length === 0) return { ok: false, reason: "must not be empty" };
  if (value.length > maxLength) {
    return {
      ok: false,
      reason: `is ${value.length} characters in the bank's half-width form; at most ${maxLength} are allowed`,
    };
  }
  return { ok: true, value };
}

/**
 * The account holder in the bank's form, or a VALIDATION_FAILED naming the field (the character
 * set is also declared on the request in the .proto; the length after normalisation only here).
 */
export function requireBankAccountHolder(input: string, field = "account_holder", widened = ""): string {
  const result = normaliseBankKana(input, accountHolderMaxLength, { widened });
  if (result.ok) return result.value;
  throw validationFailure(field, result.reason);
}
