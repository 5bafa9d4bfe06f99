import { describe, expect, it } from "vitest";
import { bankCalendar } from "./bank-calendar.js";
import { japaneseNationalHolidays } from "../ports/national-holidays.js";
import { cancellationDeadline, refundSettlesAt } from "./bank-cutoff.js";
import { bankProfileOf, defaultBankProfile } from "./bank-profile.js";

const jst = (local: string) => new Date(`${local}:00+09:00`);
const calendar = bankCalendar(japaneseNationalHolidays);
const standard = { profile: defaultBankProfile, calendar };
const lateCutoff = { profile: bankProfileOf("9902"), calendar };

describe("cancellationDeadline", () => {
  it("is the cutoff of the charge's day when charged before it on a business day", () => {
    expect(cancellationDeadline(standard, jst("2026-03-10T10:00"))).toEqual(jst("2026-03-10T15:00"));
    expect(cancellationDeadline(lateCutoff, jst("2026-03-10T10:00"))).toEqual(jst("2026-03-10T18:00"));
  });

  it("is the next business day's cutoff for a charge after the cutoff or on a holiday", () => {
    expect(cancellationDeadline(standard, jst("2026-03-10T15:00"))).toEqual(jst("2026-03-11T15:00"));
    expect(cancellationDeadline(standard, jst("2026-03-13T16:00"))).toEqual(jst("2026-03-16T15:00"));
    expect(cancellationDeadline(standard, jst("2026-12-31T10:00"))).toEqual(jst("2027-01-04T15:00"));
  });
});

describe("refundSettlesAt", () => {
  it("is 09:00 JST on the N-th business day after the request's day", () => {
    expect(refundSettlesAt(standard, jst("2026-03-10T16:00"))).toEqual(jst("2026-03-11T09:00"));
    expect(refundSettlesAt(standard, jst("2026-03-13T16:00"))).toEqual(jst("2026-03-16T09:00"));
    expect(refundSettlesAt(standard, jst("2026-03-14T12:00"))).toEqual(jst("2026-03-16T09:00"));
    expect(refundSettlesAt(standard, jst("2026-12-30T16:00"))).toEqual(jst("2027-01-04T09:00"));
    expect(refundSettlesAt(lateCutoff, jst("2026-03-13T16:00"))).toEqual(jst("2026-03-17T09:00"));
  });
});
