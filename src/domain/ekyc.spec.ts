import { describe, expect, it } from "vitest";
import { KycMethod } from "../../gen/payments/v1/enums_pb.js";
import { bankCalendar } from "./bank-calendar.js";
import { japaneseNationalHolidays } from "../ports/national-holidays.js";
import { kycMethodRefusal, kycRejectionReasons, kycReviewDueAt, magicKycRejection } from "./ekyc.js";

const jst = (local: string) => new Date(`${local}:00+09:00`);
const calendar = bankCalendar(japaneseNationalHolidays);

describe("kycMethodRefusal", () => {
  it("refuses photo-based methods from 2027-04-01 JST, and nothing else", () => {
    expect(kycMethodRefusal(KycMethod.PHOTO_SELFIE, jst("2027-03-31T23:59"))).toBeUndefined();
    const refusal =
      "photo-based identity verification is not accepted from 2027-04-01; use the IC chip (with a selfie) or the My Number Card signature";
    expect(kycMethodRefusal(KycMethod.PHOTO_SELFIE, jst("2027-04-01T00:00"))).toBe(refusal);
    expect(kycMethodRefusal(KycMethod.PHOTO_DOCUMENTS, jst("2027-04-01T00:00"))).toBe(refusal);
    expect(kycMethodRefusal(KycMethod.IC_CHIP_SELFIE, jst("2027-04-01T00:00"))).toBeUndefined();
    expect(kycMethodRefusal(KycMethod.MY_NUMBER_SIGNATURE, jst("2030-01-01T00:00"))).toBeUndefined();
    expect(kycMethodRefusal(KycMethod.UNSPECIFIED, jst("2030-01-01T00:00"))).toBeUndefined();
  });
});

describe("kycReviewDueAt", () => {
  it("takes minutes for chip and signature, whenever", () => {
    expect(kycReviewDueAt(KycMethod.IC_CHIP_SELFIE, calendar, jst("2026-03-14T23:00"))).toEqual(
      jst("2026-03-14T23:05"),
    );
  });

  it("takes three office hours for photos, waiting for the next business morning at night and on holidays", () => {
    expect(kycReviewDueAt(KycMethod.PHOTO_SELFIE, calendar, jst("2026-03-10T10:00"))).toEqual(jst("2026-03-10T13:00"));
    expect(kycReviewDueAt(KycMethod.PHOTO_SELFIE, calendar, jst("2026-03-10T07:00"))).toEqual(jst("2026-03-10T12:00"));
    expect(kycReviewDueAt(KycMethod.PHOTO_SELFIE, calendar, jst("2026-03-10T19:00"))).toEqual(jst("2026-03-11T12:00"));
    expect(kycReviewDueAt(KycMethod.PHOTO_DOCUMENTS, calendar, jst("2026-03-14T10:00"))).toEqual(
      jst("2026-03-16T12:00"),
    );
  });
});

describe("magicKycRejection", () => {
  it("reads kyc-<reason> from the e-mail's local part", () => {
    expect(magicKycRejection("kyc-expired-document@example.jp")).toBe(kycRejectionReasons["expired-document"]);
    expect(magicKycRejection("KYC-Unreadable-Image@example.jp")).toBe(kycRejectionReasons["unreadable-image"]);
    expect(magicKycRejection("kyc-toString@example.jp")).toBeUndefined();
    expect(magicKycRejection("taro@example.jp")).toBeUndefined();
  });
});
