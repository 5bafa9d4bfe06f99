import { corporateNumberProblem } from "./corporate-number.js";
import type { OnboardingState } from "./onboarding.js";
import { RequestRefusal } from "./request-refusal.js";

/** The version of the merchant terms a merchant accepts to go live; a new version asks again. */
export const merchantTermsVersion = "2026-11-28";

/** The business behind a merchant (docs/guide/getting-started.md#the-checklist). */
export interface BusinessDetails {
  /** 法人 (a corporation, with its 法人番号) or 個人事業主 (a sole proprietor, none). */
  kind: "corporation" | "sole_proprietor";
  corporateNumber: string;
  /** 商号 and its katakana reading. */
  tradeName: string;
  tradeNameKana: string;
  /** 所在地. */
  address: string;
  /** 代表者. */
  representative: string;
  phone: string;
  /**
   * インボイス 登録番号 (T and 13 digits; a corporation's is T and its 法人番号), "" when the
   * business is not a registered issuer: its receipts are then 領収書, not 適格請求書. Details saved
   * before the field existed read as "".
   */
  invoiceRegistrationNumber: string;
}

/** What the merchant has done of the going-live checklist, each item saved as it is done. */
export interface OnboardingChecklist {
  state: OnboardingState;
  business: BusinessDetails | undefined;
  /** At least one 口座振替 contract (the Zengin settings). */
  zenginContract: boolean;
  /** The webhook endpoint answered a signed test event with 2xx. */
  webhookAnswered: boolean;
  /** The version of the terms accepted ("" none), and when. */
  termsVersion: string;
  termsAcceptedAt: Date | null;
  /** Why the operator sent the checklist back ("" when not sent back). */
  sentBackReason: string;
}

export type ChecklistItem = "business" | "zengin_contract" | "webhook" | "terms";

/** The items still to do, in the order the page lists them. */
export function missingItems(checklist: OnboardingChecklist): ChecklistItem[] {
  const missing: ChecklistItem[] = [];
  if (!checklist.business) missing.push("business");
  if (!checklist.zenginContract) missing.push("zengin_contract");
  if (!checklist.webhookAnswered) missing.push("webhook");
  if (checklist.termsVersion !== merchantTermsVersion) missing.push("terms");
  return missing;
}

/** Refuses details that break a rule the .proto cannot state: the 法人番号 matches the kind, with its check digit. */
export function checkBusinessDetails(details: BusinessDetails): BusinessDetails {
  if (details.kind === "corporation") {
    const problem = corporateNumberProblem(details.corporateNumber);
    if (problem)
      throw new RequestRefusal("invalid", `corporate_number: ${problem}`, { reason: "CORPORATE_NUMBER_INVALID" });
  } else if (details.corporateNumber !== "") {
    throw new RequestRefusal("invalid", "corporate_number: a sole proprietor has no 法人番号", {
      reason: "CORPORATE_NUMBER_INVALID",
    });
  }
  const problem = invoiceRegistrationNumberProblem(details);
  if (problem)
    throw new RequestRefusal("invalid", `invoice_registration_number: ${problem}`, {
      reason: "INVOICE_REGISTRATION_NUMBER_INVALID",
    });
  return details;
}

/**
 * Why the インボイス 登録番号 cannot be the business's, or undefined: T and 13 digits with the
 * 法人番号's check digit, and for a corporation T followed by its own 法人番号 (国税庁: a 法人's
 * 登録番号 is its 法人番号; a 個人事業主's is a number of its own, checked the same way).
 */
export function invoiceRegistrationNumberProblem(details: BusinessDetails): string | undefined {
  const number = details.invoiceRegistrationNumber;
  if (number === "") return undefined;
  if (!/^T[0-9]{13}$/.test(number)) return "a 登録番号 is T and 13 digits";
  if (corporateNumberProblem(number.slice(1)))
    return "the 登録番号's check digit (the first digit after T) does not match the other 12: check for a typing error";
  if (details.kind === "corporation" && number !== `T${details.corporateNumber}`)
    return "a corporation's 登録番号 is T followed by its 法人番号";
  return undefined;
}

/** The checklist is the merchant's to change only while it is incomplete (not in review, approved or suspended). */
export function requireEditable(state: OnboardingState): void {
  if (state !== "incomplete")
    throw new RequestRefusal(
      "precondition",
      `the going-live checklist cannot be changed while the merchant is ${state}`,
      {
        reason: "ONBOARDING_NOT_EDITABLE",
        facts: { state },
      },
    );
}
