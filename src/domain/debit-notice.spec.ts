import { describe, expect, it } from "vitest";
import { debitNoticeMessage } from "./debit-notice.js";

describe("the debit notice e-mail", () => {
  it("states the debit date with its weekday and the amount, in Japanese and English", () => {
    const { subject, body } = debitNoticeMessage({
      merchantName: "ふりこみ商店",
      chargeId: "trx-1",
      amount: 2200,
      debitDate: "2026-12-01",
    });
    expect(subject).toBe("【ふりこみ商店】口座振替のお知らせ / Direct debit notice");
    expect(body).toContain("振替日の12月1日（火）に ¥2,200 を登録口座から引き落とします。");
    expect(body).toContain(
      "¥2,200 will be debited from your registered account on the debit date, Tuesday 1 December 2026.",
    );
    expect(body).toContain("受付番号: trx-1");
  });
});
