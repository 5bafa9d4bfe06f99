import type { OnboardingState } from "./onboarding.js";

/** A merchant as the flows see it (storage maps its row to this, its webhook secret unsealed). */
export interface MerchantRecord {
  id: string;
  name: string;
  /** Shown on the hosted page ("" when none). */
  logoUrl: string;
  webhookUrl: string;
  /** whsec_… signing secret, in clear (sealed at rest). */
  webhookSecret: string;
  onboardingState: OnboardingState;
  webhookFailing: boolean;
  webhookFailingReason: string;
  /** Every dashboard user of the merchant must enrol TOTP before doing anything else. */
  dashboardTotpRequired: boolean;
  /** The support contact the consent screen shows ("" when not given). */
  supportEmail: string;
  supportPhone: string;
  supportUrl: string;
  createdAt: Date;
}

/** What provisioning writes: the rest starts empty. */
export type NewMerchant = Pick<
  MerchantRecord,
  "id" | "name" | "logoUrl" | "webhookUrl" | "webhookSecret" | "onboardingState" | "createdAt"
>;
