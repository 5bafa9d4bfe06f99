import { describe, expect, it } from "vitest";
import { RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import { includedConsumptionTax, receiptAddressee, receiptIssuer, receiptRefunds } from "./receipt.js";

describe("receipt", () => {
  it("the 内消費税 of a tax-included amount at 10%, rounded down", () => {
    expect(includedConsumptionTax(1100)).toBe(100);
    expect(includedConsumptionTax(2400)).toBe(218);
    expect(includedConsumptionTax(1)).toBe(0);
    expect(includedConsumptionTax(0)).toBe(0);
    expect(() => includedConsumptionTax(-1)).toThrow();
  });

  it("is made out to the customer's name, else the katakana name, else the account's holder", () => {
    const blank = { name: "", katakanaLastName: "", katakanaFirstName: "", accountHolder: "ﾔﾏﾀﾞ ﾀﾛｳ" };
    expect(receiptAddressee({ ...blank, name: "佐藤 花子" })).toBe("佐藤 花子");
    expect(receiptAddressee({ ...blank, katakanaLastName: "サトウ", katakanaFirstName: "ハナコ" })).toBe(
      "サトウ ハナコ",
    );
    expect(receiptAddressee(blank)).toBe("ﾔﾏﾀﾞ ﾀﾛｳ");
  });

  it("names the issuer by its 商号 and address when the business details are saved", () => {
    expect(receiptIssuer("Test Shop", undefined)).toEqual({
      name: "Test Shop",
      address: "",
      invoiceRegistrationNumber: "",
    });
    const business = {
      kind: "corporation" as const,
      corporateNumber: "4011001098993",
      tradeName: "株式会社珈琲豆",
      tradeNameKana: "カブシキガイシャコーヒーマメ",
      address: "東京都渋谷区渋谷1-2-3",
      representative: "山田 太郎",
      phone: "03-1234-5678",
      invoiceRegistrationNumber: "T4011001098993",
    };
    expect(receiptIssuer("Test Shop", business)).toEqual({
      name: "株式会社珈琲豆",
      address: "東京都渋谷区渋谷1-2-3",
      invoiceRegistrationNumber: "T4011001098993",
    });
  });

  it("separates settled refunds from those still being paid back; failed ones count for neither", () => {
    expect(
      receiptRefunds([
        { amount: 500, status: RefundStatus.PENDING },
        { amount: 300, status: RefundStatus.SUCCEEDED },
        { amount: 100, status: RefundStatus.FAILED },
      ]),
    ).toEqual({ refundedAmount: 300, refundPendingAmount: 500 });
  });
});
