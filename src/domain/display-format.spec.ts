import { describe, expect, it } from "vitest";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { chargeStateOf, formatJstDate, formatJstDateTime, formatYen } from "./display-format.js";

describe("how every screen writes amounts and times", () => {
  it("writes yen with one half-width symbol and thousands separators", () => {
    expect(formatYen(1200)).toBe("¥1,200");
    expect(formatYen(1_000_000n)).toBe("¥1,000,000");
    expect(formatYen(0)).toBe("¥0");
    expect(formatYen(-500)).toBe("-¥500");
  });

  it("writes instants in Japan time, whatever the time zone they were read in", () => {
    // 23:41 UTC on 11/27 is 08:41 on 11/28 in Japan: the merchant's day, not London's.
    expect(formatJstDateTime(new Date("2026-11-27T23:41:59.311Z"))).toBe("2026/11/28 08:41");
    expect(formatJstDate(new Date("2026-11-27T23:41:59.311Z"))).toBe("2026/11/28");
    expect(formatJstDate("2026-12-01")).toBe("2026/12/01");
  });

  it("says a charge's state in one word: 未完了, 返金処理中 and 一部返金 where the status alone misleads", () => {
    const state = (status: ChargeStatus, more: Partial<Parameters<typeof chargeStateOf>[0]> = {}) =>
      chargeStateOf({ status, awaitingCustomer: false, refundedAmount: 0, refundPending: false, ...more }).ja;
    expect(state(ChargeStatus.PENDING, { awaitingCustomer: true })).toBe("未完了");
    expect(state(ChargeStatus.PENDING)).toBe("処理中");
    expect(state(ChargeStatus.SUCCESS, { refundedAmount: 3300, refundPending: true })).toBe("返金処理中");
    expect(state(ChargeStatus.SUCCESS, { refundedAmount: 1000 })).toBe("一部返金");
    expect(state(ChargeStatus.SUCCESS)).toBe("成功");
    expect(state(ChargeStatus.REFUNDED, { refundedAmount: 3300 })).toBe("全額返金");
  });
});
