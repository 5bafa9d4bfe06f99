import { describe, expect, it } from "vitest";
import { checkImportRow, checkImportRows, importReasons, indexesSharingKey } from "./subscription-import.js";

const reasonOf = (cells: string[], columns = 5) => {
  const check = checkImportRow(cells, columns);
  return check.valid ? undefined : check.reason;
};

describe("checkImportRow", () => {
  it("accepts a customer by e-mail or by id, trimming cells; empty start period and amount are the defaults", () => {
    expect(checkImportRow([" aki@example.jp ", "", " pln-1 ", "", ""], 5)).toEqual({
      valid: true,
      row: { email: "aki@example.jp", customerId: "", planId: "pln-1", startPeriod: undefined, amount: undefined },
    });
    expect(checkImportRow(["", "cus-1", "pln-1", "2027-01"], 4)).toMatchObject({
      valid: true,
      row: { customerId: "cus-1", startPeriod: "2027-01", amount: undefined },
    });
    expect(checkImportRow(["", "cus-1", "pln-1", "", "10000000"], 5)).toMatchObject({ row: { amount: 10_000_000 } });
  });

  it.each([
    ["neither e-mail nor id", ["", "", "pln-1", "", ""], importReasons.customerRequired.en],
    ["a malformed e-mail", ["aki@", "", "pln-1", "", ""], importReasons.emailInvalid.en],
    ["an id without cus-", ["", "con-1", "pln-1", "", ""], importReasons.customerIdPrefix.en],
    ["no plan", ["", "cus-1", "", "", ""], importReasons.planIdRequired.en],
    ["a date for a period", ["", "cus-1", "pln-1", "2027-01-27", ""], importReasons.startPeriodFormat.en],
    ["month 13", ["", "cus-1", "pln-1", "2027-13", ""], importReasons.startPeriodFormat.en],
    ["an amount of 0", ["", "cus-1", "pln-1", "", "0"], importReasons.amountFormat.en],
    ["an amount with a separator", ["", "cus-1", "pln-1", "", "1,000"], importReasons.amountFormat.en],
    ["a missing cell", ["", "cus-1", "pln-1", ""], importReasons.columnCount(5, 4).en],
  ])("refuses %s", (_name, cells, reason) => {
    expect(reasonOf(cells)).toBe(reason);
  });

  it("lists every problem of a row, in both languages", () => {
    const check = checkImportRow(["", "", "x", "soon", "-1"], 5);
    expect(check).toMatchObject({ valid: false });
    if (check.valid) return;
    expect(check.reason.split("; ")).toHaveLength(4);
    expect(check.reasonJa).toContain("plan_id には pln- で始まるプランIDを書いてください");
  });
});

describe("checkImportRows", () => {
  it("fails every row subscribing one customer to one plan (same id, or same e-mail in any case)", () => {
    const checks = checkImportRows(
      [
        ["Aki@example.jp", "", "pln-1", "", ""],
        ["aki@example.jp", "", "pln-1", "2027-02", ""],
        ["aki@example.jp", "", "pln-2", "", ""],
        ["", "cus-1", "pln-1", "", ""],
        ["", "cus-1", "pln-1", "", "500"],
      ],
      5,
    );
    expect(checks.map((check) => (check.valid ? "valid" : check.reason))).toEqual([
      importReasons.sameSubscription.en,
      importReasons.sameSubscription.en,
      "valid",
      importReasons.sameSubscription.en,
      importReasons.sameSubscription.en,
    ]);
  });

  it("indexesSharingKey ignores empty keys", () => {
    expect([...indexesSharingKey(["a", "", "a", "", "b"])]).toEqual([0, 2]);
  });
});
