import { KycMethod } from "../../gen/payments/v1/enums_pb.js";
import type { BankCalendar } from "./bank-calendar.js";
import { jstDateOf, jstInstant } from "./jst.js";
import { limits } from "./limits.js";

/**
 * eKYC as the Act on Prevention of Transfer of Criminal Proceeds has it (docs/guide/simulated-bank.md): chip- and signature-based methods are checked by machine in minutes;
 * photo-based review is done by people during office hours on business days and is no longer a
 * permitted method from 2027-04-01 (the amended ordinance).
 */
export const photoMethodsEndOn = "2027-04-01";
export const machineReviewMs = limits.ekycMachineReviewMs;
export const photoReviewMs = limits.ekycPhotoReviewMs;
export const reviewOfficeHours = Object.freeze({ opens: "09:00", closes: "18:00" });

export function isPhotoBased(method: KycMethod): boolean {
  return method === KycMethod.PHOTO_SELFIE || method === KycMethod.PHOTO_DOCUMENTS;
}

/** Why a method is refused at `now`, or undefined when it is allowed. */
export function kycMethodRefusal(method: KycMethod, now: Date): string | undefined {
  if (isPhotoBased(method) && jstDateOf(now) >= photoMethodsEndOn) {
    return `photo-based identity verification is not accepted from ${photoMethodsEndOn}; use the IC chip (with a selfie) or the My Number Card signature`;
  }
  return undefined;
}

/**
 * When the review of a submission with `method` finishes: minutes for machine checks; for photos,
 * three hours from when the office takes it up (at once in office hours, else the next business
 * morning).
 */
export function kycReviewDueAt(method: KycMethod, calendar: BankCalendar, now: Date): Date {
  if (!isPhotoBased(method)) return new Date(now.getTime() + machineReviewMs);
  const today = jstDateOf(now);
  const inOfficeHours =
    calendar.isBusinessDay(today) &&
    now >= jstInstant(today, reviewOfficeHours.opens) &&
    now < jstInstant(today, reviewOfficeHours.closes);
  const startsAt = inOfficeHours ? now : jstInstant(nextOpeningDay(calendar, today, now), reviewOfficeHours.opens);
  return new Date(startsAt.getTime() + photoReviewMs);
}

function nextOpeningDay(calendar: BankCalendar, today: string, now: Date): string {
  const beforeOpening = now < jstInstant(today, reviewOfficeHours.opens);
  return beforeOpening ? calendar.businessDayFrom(today) : calendar.nextBusinessDay(today);
}

/**
 * The rejection reasons a review reports on the customer's KYC status, and the sandbox magic
 * values that force them: a customer e-mail whose local part is `kyc-<reason>` (e.g.
 * kyc-old-kanji@example.jp) is denied with that reason by the automatic review.
 */
export const kycRejectionReasons = Object.freeze({
  "name-mismatch": "the name does not match the identity document",
  "old-kanji": "the name uses an old-style kanji (旧字体) different from the identity document",
  "incomplete-address": "the address is incomplete (building or room number missing)",
  "expired-document": "the identity document has expired",
  "unreadable-image": "the image of the identity document could not be read",
});

export function magicKycRejection(email: string): string | undefined {
  const local = email.split("@")[0]?.toLowerCase() ?? "";
  const key = local.startsWith("kyc-") ? local.slice(4) : "";
  return Object.hasOwn(kycRejectionReasons, key)
    ? kycRejectionReasons[key as keyof typeof kycRejectionReasons]
    : undefined;
}
