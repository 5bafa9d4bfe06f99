import { describe, expect, it } from "vitest";
import { accountIdentity } from "./bank-account.js";
import { type AnsweredRecord, ResultCheck } from "./zengin-result-check.js";

const requested = [
  {
    customerNumber: "20261126000000000001",
    bankCode: "0001",
    branchCode: "123",
    accountNumber: "0012345",
    amount: 1500,
  },
  {
    customerNumber: "20261126000000000002",
    bankCode: "0005",
    branchCode: "010",
    accountNumber: "7654321",
    amount: 98765,
  },
];
const byNumber = new Map(
  requested.map((record) => [record.customerNumber, { ...record, accountKey: accountIdentity(record) }]),
);
const [first, second] = requested.map((record) => ({ ...record, resultCode: 0 }) as AnsweredRecord);

/** The first reason a sequence of answers is refused, as the import checks them. */
function reasonOf(kind: "91" | "21", answers: AnsweredRecord[]): string | undefined {
  const check = new ResultCheck(kind, requested.length);
  for (const answer of answers) {
    const reason = check.record(byNumber.get(answer.customerNumber), answer);
    if (reason) return reason;
  }
  return check.finish();
}

describe("ResultCheck: a result file against the request, record by record", () => {
  it("accepts every record answered once, in any order", () => {
    expect(reasonOf("91", [first, second])).toBeUndefined();
    expect(reasonOf("91", [second, { ...first, resultCode: 4 }])).toBeUndefined();
  });

  it("refuses a record answered twice, one left out, one we never sent", () => {
    expect(reasonOf("91", [first, first])).toMatch(/customer number 20261126000000000001 is answered twice/);
    expect(reasonOf("91", [first])).toBe("1 requested debits are not answered");
    expect(reasonOf("21", [second])).toBe("1 requested transfers are not answered");
    expect(reasonOf("91", [first, { ...second, customerNumber: "20261126000000000003" }])).toMatch(
      /20261126000000000003 was not in the request/,
    );
  });

  it("refuses another amount, another account, an unknown or missing result", () => {
    expect(reasonOf("91", [first, { ...second, amount: 1 }])).toMatch(/amount 1 is not 98765/);
    expect(reasonOf("91", [first, { ...second, accountNumber: "7654320" }])).toMatch(
      /account is not the one requested/,
    );
    expect(reasonOf("91", [first, { ...second, branchCode: "011" }])).toMatch(/account is not the one requested/);
    expect(reasonOf("91", [first, { ...second, resultCode: 5 }])).toMatch(/振替結果コード 5 is unknown/);
    expect(reasonOf("21", [first, { ...second, resultCode: undefined }])).toMatch(/customer code .* has no result/);
    // A transfer's answer may carry any digit (docs/operations/zengin.md#file-layouts).
    expect(reasonOf("21", [first, { ...second, resultCode: 5 }])).toBeUndefined();
  });

  it("in a failures-only result, leaves nothing missing and counts the debits not listed", () => {
    const check = new ResultCheck("91", requested.length, undefined, true);
    expect(check.record(byNumber.get(second.customerNumber), { ...second, resultCode: 1 })).toBeUndefined();
    expect(check.finish()).toBeUndefined();
    expect(check.unlisted(1500 + 98765)).toEqual({ count: 1, amount: 1500 });
    // A listed record must still be one we sent.
    expect(check.record(undefined, { ...first, customerNumber: "20261126000000000009" })).toMatch(
      /20261126000000000009 was not in the request/,
    );
  });
});
