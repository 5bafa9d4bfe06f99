import { validationFailure } from "./payment-failure.js";
import { limits } from "./limits.js";

/**
 * Account holder names as Japanese banks hold them (全銀 character set): half-width uppercase
 * katakana with voiced marks (ﾞﾟ), A–Z, 0–9, space and ( ) - . /, at most 30 characters.
 * Customers type full-width katakana, so the name is normalised first: to half-width, small kana
 * to full size (ｯ → ﾂ), the long-vowel mark ー to "-", full-width letters, digits and spaces to ASCII.
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

const allowedInBank = /^[ｦｱ-ﾝﾞﾟA-Z0-9 ().\-/]$/u;

export type BankKanaResult = { ok: true; value: string } | { ok: false; reason: string };

/**
 * Normalises a name to the bank's form and checks it.
 *
 * @example normaliseBankKana("キャッシュ ミホ") // { ok: true, value: "ｷﾔﾂｼﾕ ﾐﾎ" }
 */
export function normaliseBankKana(input: string, maxLength = accountHolderMaxLength): BankKanaResult {
  // NFKC turns half-width kana full-width (composing ｶﾞ into ガ) and full-width ASCII plain, so
  // every spelling goes through the one full-width table below.
  const composed = input.normalize("NFKC").trim();
  let value = "";
  for (const char of composed) {
    const full = fullSizeOfSmall[char] ?? char;
    const mapped = full === "ー" ? "-" : (halfWidthOf(full) ?? full);
    if (![...mapped].every((part) => allowedInBank.test(part))) {
      return {
        ok: false,
        reason: `"${char}" cannot be used in a bank account name: use katakana, A–Z, 0–9, space and ( ) - . /`,
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
export function requireBankAccountHolder(input: string, field = "account_holder"): string {
  const result = normaliseBankKana(input);
  if (result.ok) return result.value;
  throw validationFailure(field, result.reason);
}
