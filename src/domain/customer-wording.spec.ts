import { describe, expect, it } from "vitest";
import { ChargeStatus, ContractStatus, ErrorType, RefundStatus } from "../../gen/payments/v1/enums_pb.js";
import { hasReceipt } from "./charge.js";
import {
  chargeStatusWording,
  contractStatusWording,
  debitNoticeWording,
  failureWording,
  refundStatusWording,
} from "./customer-wording.js";
import { jstMonthRange } from "./jst.js";

const valuesOf = (enumObject: Record<string, string | number>) =>
  Object.values(enumObject).filter((v): v is number => typeof v === "number");

describe("the customer app's wording", () => {
  it("has Japanese and English for every status and every ErrorType", () => {
    for (const [table, enumObject] of [
      [chargeStatusWording, ChargeStatus],
      [refundStatusWording, RefundStatus],
      [contractStatusWording, ContractStatus],
      [failureWording, ErrorType],
    ] as const)
      for (const value of valuesOf(enumObject)) {
        const wording = (table as Record<number, { ja: string; en: string }>)[value];
        expect(wording?.ja, `${value}`).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
        expect(wording?.en, `${value}`).toMatch(/^[A-Z]/);
      }
  });

  it("gives a receipt for a debited charge only", () => {
    expect(valuesOf(ChargeStatus).filter(hasReceipt)).toEqual([ChargeStatus.SUCCESS, ChargeStatus.REFUNDED]);
  });

  it("bounds a month in Japan time, December into January", () => {
    expect(jstMonthRange("2026-12")).toEqual({
      from: new Date("2026-11-30T15:00:00Z"),
      to: new Date("2026-12-31T15:00:00Z"),
    });
  });

  it("states a debit date with its weekday (JST calendar) and the amount", () => {
    expect(debitNoticeWording("2026-12-01", 2200)).toEqual({
      ja: "振替日の12月1日（火）に ¥2,200 を登録口座から引き落とします",
      en: "¥2,200 will be debited from your registered account on the debit date, Tuesday 1 December 2026",
    });
    expect(debitNoticeWording("2027-01-04", 1_000_000).ja).toBe(
      "振替日の1月4日（月）に ¥1,000,000 を登録口座から引き落とします",
    );
  });
});
