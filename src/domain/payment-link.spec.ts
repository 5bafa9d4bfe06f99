import { describe, expect, it } from "vitest";
import { ChargeStatus, ErrorType, PaymentWorkflow } from "../../gen/payments/v1/enums_pb.js";
import {
  hasLapsed,
  linkExpiresAt,
  maskEmail,
  outcomeOfLink,
  redirectUrlFor,
  tokenOfPaymentLinkUrl,
} from "./payment-link.js";

const link = {
  id: "chg-1",
  chargeId: "trx-1",
  contractId: "con-1",
  workflow: PaymentWorkflow.CONTRACT_WITH_CHARGE,
  successUrl: "https://shop.example/ok?order=7#top",
  failureUrl: "https://shop.example/ng",
};

describe("payment links", () => {
  it("lapse 90 minutes after creation, only while open", () => {
    const created = new Date("2025-01-01T00:00:00Z");
    const expiresAt = linkExpiresAt(created);
    expect(expiresAt.toISOString()).toBe("2025-01-01T01:30:00.000Z");
    expect(hasLapsed({ state: "open", expiresAt }, new Date(expiresAt.getTime() - 1))).toBe(false);
    expect(hasLapsed({ state: "open", expiresAt }, expiresAt)).toBe(true);
    expect(hasLapsed({ state: "completed", expiresAt }, expiresAt)).toBe(false);
  });

  it("redirect to success_url with the ids, keeping the merchant's query", () => {
    const url = new URL(
      redirectUrlFor(link, { chargeStatus: ChargeStatus.SUCCESS, errorType: ErrorType.UNSPECIFIED, errorMessage: "" }),
    );
    expect(url.pathname).toBe("/ok");
    expect(url.hash).toBe("#top");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      order: "7",
      charge_id: "chg-1",
      transaction_id: "trx-1",
      contract_id: "con-1",
      status: "CHARGE_STATUS_SUCCESS",
    });
  });

  it("redirect a failure to failure_url with the error code", () => {
    const outcome = outcomeOfLink("expired", undefined);
    const url = new URL(redirectUrlFor({ ...link, workflow: PaymentWorkflow.CHARGE }, outcome));
    expect(url.pathname).toBe("/ng");
    expect(url.searchParams.get("status")).toBe("CHARGE_STATUS_FAILURE");
    expect(url.searchParams.get("error_code")).toBe("ERROR_TYPE_PAYMENT_LINK_EXPIRED");
    expect(url.searchParams.has("contract_id")).toBe(false);
  });

  it("mask the e-mail and find the token of a link URL", () => {
    expect(maskEmail("taro@example.jp")).toBe("t***@example.jp");
    expect(tokenOfPaymentLinkUrl("https://pay.example/pay/abc123")).toBe("abc123");
    expect(tokenOfPaymentLinkUrl(" abc123 ")).toBe("abc123");
  });
});
