/**
 * The 法人番号 (corporate number) check (docs/guide/getting-started.md#the-checklist): 13 digits,
 * the first the check digit of the 12-digit 基礎番号 after it: 9 − (Σ Pₙ × Qₙ mod 9), where Pₙ is
 * the base's n-th digit counted from its right end and Qₙ is 1 for odd n, 2 for even n (法人番号の
 * 指定等に関する省令 第二条, with the sum taken before the remainder).
 */
export function corporateNumberCheckDigit(base: string): number {
  if (!/^[0-9]{12}$/.test(base)) throw new Error("a 法人番号's base is 12 digits");
  let sum = 0;
  for (let n = 1; n <= 12; n++) sum += Number(base[12 - n]) * (n % 2 === 1 ? 1 : 2);
  return 9 - (sum % 9);
}

/** Why the text is not a 法人番号, or undefined when it is one. */
export function corporateNumberProblem(text: string): string | undefined {
  if (!/^[0-9]{13}$/.test(text)) return "a 法人番号 is 13 digits";
  if (Number(text[0]) !== corporateNumberCheckDigit(text.slice(1)))
    return "the 法人番号's check digit (its first digit) does not match the other 12: check for a typing error";
  return undefined;
}
