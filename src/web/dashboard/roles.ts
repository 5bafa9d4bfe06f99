import { DashboardRole } from "../../../gen/payments/v1/dashboard_roles_pb.js";
import type { DashboardUser } from "../../../gen/payments/v1/dashboard_service_pb.js";

/**
 * Whether the signed-in user's role reaches `least` (docs/guide/dashboard.md#roles), to leave out
 * what they may not do. The server refuses it anyway; the page only spares them the refusal.
 * The roles' numbers rise with what they may do (viewer 1 … owner 4).
 */
export function may(user: DashboardUser, least: DashboardRole): boolean {
  return user.role >= least;
}

export { DashboardRole };
