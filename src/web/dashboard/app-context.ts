import type { DashboardUser } from "../../../gen/payments/v1/dashboard_service_pb.js";

/** What every view is given. */
export interface AppContext {
  readonly user: DashboardUser;
  /** "sandbox" or "production" (from the page), to show the sandbox controls or not. */
  readonly mode: string;
  /** Asks the server again who is signed in (after TOTP enrolment). */
  refreshUser(): Promise<void>;
  /** Says something to screen readers (and shows it) after an action succeeded. */
  announce(text: string): void;
}
