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
  return details;
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
