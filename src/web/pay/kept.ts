import { state } from "./page.js";

/**
 * What this tab keeps of a link across a reload or the browser's Back (issue #31 finding 6), in
 * sessionStorage under the link's token: the code's times once it was sent (so a reload shows the
 * code field, not a 送信 the throttle refuses) and what was typed on the bank step (so coming back
 * from the bank's page does not replace it with the sandbox's demo account). sessionStorage is this
 * tab's own and ends with it; the typed account is kept until the payment is approved, so the
 * browser's Back from the consent shows it again.
 */
type Kept = {
  code?: { expiresAt?: number; resendAvailableAt: number };
  bank?: Record<string, string>;
  /** The account was confirmed on the bank's own page (the consent says so). */
  bankVerified?: boolean;
};

const key = () => `furikomi.pay.${state.token}`;

export function kept(): Kept {
  try {
    return JSON.parse(sessionStorage.getItem(key()) ?? "{}") as Kept;
  } catch {
    return {};
  }
}

export function keep(change: Partial<Kept>): void {
  try {
    sessionStorage.setItem(key(), JSON.stringify({ ...kept(), ...change }));
  } catch {
    // private mode or full: the page still works, it only forgets on reload
  }
}
