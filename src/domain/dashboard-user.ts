import type { RoleName } from "./dashboard-role.js";

/** A merchant's dashboard user (docs/guide/dashboard.md), its TOTP seed in clear (sealed at rest). */
export interface DashboardUserRecord {
  id: string;
  merchantId: string;
  email: string;
  /** scrypt$N$r$p$salt$hash (domain/password-hash.ts); "" when a reset link is pending or the user was removed. */
  passwordHash: string;
  totpSecret: string;
  totpEnabled: boolean;
  /** Time-step of the last accepted TOTP code: no code of that step or earlier is accepted again. */
  totpLastStep: number;
  totpFailures: number;
  totpLockedUntil: Date | null;
  role: RoleName;
  /** The user must enrol TOTP before anything else (invited, or their TOTP was reset). */
  totpSetupRequired: boolean;
  createdAt: Date;
  updatedAt: Date;
  /** Set when an owner removed the user: it never signs in again (its e-mail is freed). */
  removedAt: Date | null;
  /**
   * Moved on by removal, a password or TOTP reset and a role change, in the change's transaction:
   * a session or sign-in begun under an older epoch no longer counts
   * (docs/reference/security.md#access-that-ends).
   */
  accessEpoch: number;
}

/**
 * Whether a sign-in that read `seen` before its slow checks may still start a session for the user
 * as it is now (read again, locked, in the session's transaction): not removed, same epoch.
 */
export function accessStillGranted(current: DashboardUserRecord | undefined, seen: { accessEpoch: number }): boolean {
  return current !== undefined && current.removedAt === null && current.accessEpoch === seen.accessEpoch;
}

/** What a change to a user may set. */
export type DashboardUserChange = Partial<
  Pick<
    DashboardUserRecord,
    | "passwordHash"
    | "totpSecret"
    | "totpEnabled"
    | "totpLastStep"
    | "totpFailures"
    | "totpLockedUntil"
    | "totpSetupRequired"
    | "updatedAt"
  >
>;

/** A user as the team list shows it. */
export type TeamMember = Pick<DashboardUserRecord, "id" | "email" | "role" | "totpEnabled" | "createdAt">;
