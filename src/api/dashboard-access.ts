import { getOption, hasOption, type DescMethod } from "@bufbuild/protobuf";
import { dashboard_role, dashboard_sign_in } from "../../gen/payments/v1/dashboard_roles_pb.js";
import { roleName, type RoleName } from "../domain/dashboard-role.js";

/**
 * Who may call a DashboardService method, as its .proto declares it
 * (docs/guide/dashboard.md#roles): a step of signing in (no session), the least role it needs, or
 * nothing declared, which no one may call.
 */
export type MethodAccess = { kind: "sign_in" } | { kind: "role"; role: RoleName } | { kind: "undeclared" };

const declared = new WeakMap<DescMethod, MethodAccess>();

export function accessOf(method: DescMethod): MethodAccess {
  let access = declared.get(method);
  if (!access) {
    access = readAccess(method);
    declared.set(method, access);
  }
  return access;
}

function readAccess(method: DescMethod): MethodAccess {
  if (hasOption(method, dashboard_sign_in) && getOption(method, dashboard_sign_in)) return { kind: "sign_in" };
  const role = hasOption(method, dashboard_role) ? roleName(getOption(method, dashboard_role)) : undefined;
  return role ? { kind: "role", role } : { kind: "undeclared" };
}
