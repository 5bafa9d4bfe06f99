/**
 * ゆうちょ銀行 (bank code 9900): the 記号 (5 digits) and 番号 (up to 8 digits) printed in a passbook,
 * converted to the 店番 and 口座番号 other banks and Zengin files use, by Japan Post's published rule
 * (docs/guide/hosted-page.md, "Choosing the account"):
 * - 記号 starting with 1 (通常貯金): 店番 = its 2nd and 3rd digits followed by 8, 普通; 口座番号 = the
 *   番号 without its last digit (always 1), zero-padded to 7 digits.
 * - 記号 starting with 0 (振替口座): 店番 = its 2nd and 3rd digits followed by 9, 当座; 口座番号 = the
 *   番号 zero-padded to 7 digits.
 * The branch's name is the 店番 in kanji numerals (〇五八).
 */
import { BankAccountType } from "../../gen/payments/v1/enums_pb.js";

export const yuchoBankCode = "9900";

export interface YuchoZenginAccount {
  branchCode: string;
  /** 〇五八 */
  branchName: string;
  accountType: BankAccountType;
  accountNumber: string;
}

export type YuchoConversion =
  | { ok: true; account: YuchoZenginAccount }
  | { ok: false; field: "kigo" | "bango"; problem: YuchoProblem; reason: string };

/** Why a 記号・番号 does not convert: the page says it in the customer's words (bank.yucho.* in web/pay/messages.ts). */
export type YuchoProblem = "kigoFormat" | "bangoFormat" | "bangoCheckDigit" | "bangoTooLong";

const kanjiDigits = "〇一二三四五六七八九";

/** Full-width digits (０-９) count as digits: customers type them on Japanese keyboards. */
export function asciiDigits(input: string): string {
  return input.replace(/[０-９]/g, (digit) => String.fromCharCode(digit.charCodeAt(0) - 0xfee0)).trim();
}

/** The branch name Japan Post gives a 店番: its digits as kanji numerals. */
export function yuchoBranchName(branchCode: string): string {
  return [...branchCode].map((digit) => kanjiDigits[Number(digit)]).join("");
}

/**
 * Converts a passbook's 記号・番号.
 *
 * @example yuchoToZengin("10530", "12345671") // 店番 058 (〇五八), 普通, 口座番号 1234567
 */
export function yuchoToZengin(kigoInput: string, bangoInput: string): YuchoConversion {
  const kigo = asciiDigits(kigoInput);
  const bango = asciiDigits(bangoInput);
  if (!/^[01][0-9]{4}$/.test(kigo))
    return {
      ok: false,
      field: "kigo",
      problem: "kigoFormat",
      reason: "the 記号 is 5 digits starting with 1 (or 0 for a 振替口座)",
    };
  if (!/^[0-9]{1,8}$/.test(bango))
    return { ok: false, field: "bango", problem: "bangoFormat", reason: "the 番号 is up to 8 digits" };
  const ordinary = kigo[0] === "1";
  const branchCode = `${kigo.slice(1, 3)}${ordinary ? "8" : "9"}`;
  if (ordinary && !bango.endsWith("1"))
    return {
      ok: false,
      field: "bango",
      problem: "bangoCheckDigit",
      reason: "the 番号 of an ordinary account ends in 1: check the passbook",
    };
  const number = ordinary ? bango.slice(0, -1) : bango;
  if (number.length > 7 || number.length === 0)
    return {
      ok: false,
      field: "bango",
      problem: "bangoTooLong",
      reason: "the 番号 is too long for this 記号: check the passbook",
    };
  return {
    ok: true,
    account: {
      branchCode,
      branchName: yuchoBranchName(branchCode),
      accountType: ordinary ? BankAccountType.ORDINARY : BankAccountType.CURRENT,
      accountNumber: number.padStart(7, "0"),
    },
  };
}
