import { DashboardRole } from "../../gen/payments/v1/dashboard_roles_pb.js";
import { RequestRefusal } from "./request-refusal.js";

/**
 * The roles of a merchant's dashboard users (docs/guide/dashboard.md#roles), nested: each may do
 * everything the roles below it may. Stored by name.
 */
export type RoleName = "viewer" | "operator" | "admin" | "owner";

const rank: Readonly<Record<RoleName, number>> = Object.freeze({ viewer: 1, operator: 2, admin: 3, owner: 4 });

const byEnum: Readonly<Record<number, RoleName>> = Object.freeze({
  [DashboardRole.VIEWER]: "viewer",
  [DashboardRole.OPERATOR]: "operator",
  [DashboardRole.ADMIN]: "admin",
  [DashboardRole.OWNER]: "owner",
});

export function roleName(role: DashboardRole): RoleName | undefined {
  return byEnum[role];
}

export function roleEnum(name: string): DashboardRole {
  const found = Object.entries(byEnum).find(([, value]) => value === name);
  return found ? (Number(found[0]) as DashboardRole) : DashboardRole.UNSPECIFIED;
}

export function isRoleName(name: string): name is RoleName {
  return Object.hasOwn(rank, name);
}

/** Whether a user of role `held` may call a method that needs `needed`. */
export function roleAllows(held: string, needed: RoleName): boolean {
  return isRoleName(held) && rank[held] >= rank[needed];
}

export const roleForbidden = (needed: RoleName | undefined) =>
  new RequestRefusal("forbidden", needed ? `this needs the ${needed} role or above` : "no role may call this method", {
    reason: "ROLE_FORBIDDEN",
  });
