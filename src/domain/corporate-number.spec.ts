import { describe, expect, it } from "vitest";
import { corporateNumberCheckDigit, corporateNumberProblem } from "./corporate-number.js";

// Published numbers and the worked example of the rule (docs/guide/getting-started.md#the-checklist).
const valid = [
  "4011001098993", // a 株式会社 as its own published notice gives it
  "2120901007402", // a tax accountant's worked example from a 登記簿 会社法人等番号
  "7123456789012", // the rule's worked example: Σ = 74, 74 mod 9 = 2, 9 − 2 = 7
];

describe("corporateNumberProblem", () => {
  it("accepts numbers whose first digit is the base's check digit", () => {
    for (const number of valid) expect(corporateNumberProblem(number), number).toBeUndefined();
    expect(corporateNumberCheckDigit("123456789012")).toBe(7);
  });

  it("refuses every other first digit, a swapped pair of digits, and what is not 13 digits", () => {
    for (const number of valid)
      for (let digit = 0; digit <= 9; digit++) {
        const other = `${digit}${number.slice(1)}`;
        if (other !== number) expect(corporateNumberProblem(other), other).toMatch(/check digit/);
      }
    // 5010401088742 was offered as an example; its check digit is 7, not 5.
    expect(corporateNumberProblem("5010401088742")).toMatch(/check digit/);
    expect(corporateNumberProblem("7010401088742")).toBeUndefined();
    expect(corporateNumberProblem("4011001098939")).toMatch(/check digit/);
    for (const text of ["", "401100109899", "40110010989930", "4011-001098993", "４０１１００１０９８９９３"])
      expect(corporateNumberProblem(text), text).toBe("a 法人番号 is 13 digits");
  });
});
