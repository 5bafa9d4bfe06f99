import { create } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { DashboardService } from "../../gen/payments/v1/dashboard_service_pb.js";
import { GetBankAccountRequestSchema, ListMailboxRequestSchema } from "../../gen/payments/v1/sandbox_service_pb.js";
import { requireSandbox } from "../flows/dashboard.js";
import type { FlowContext } from "../flows/flow-context.js";
import { auditedContext } from "./dashboard-team.js";
import { createSandboxService } from "./sandbox-service.js";

type SandboxMethods =
  | "listSandboxMailbox"
  | "getSandboxBankAccount"
  | "configureSandboxBankAccount"
  | "setSandboxBankMaintenance";

/**
 * The sandbox's mailbox and simulated bank in the dashboard; spread into DashboardService. The
 * session interceptor also sets the merchant of the call, so SandboxService's handlers serve the
 * dashboard as they serve the API, made per call with the caller's flow context (audited).
 */
export function createSandboxHandlers(ctx: FlowContext): Pick<ServiceImpl<typeof DashboardService>, SandboxMethods> {
  const sandbox = (context: HandlerContext) =>
    createSandboxService(auditedContext(ctx, context)) as Required<ReturnType<typeof createSandboxService>>;
  return {
    async listSandboxMailbox(req, context) {
      requireSandbox(ctx);
      return {
        messages: (await sandbox(context).listMailbox(create(ListMailboxRequestSchema, { email: req.email }), context))
          .messages,
      };
    },
    async getSandboxBankAccount(req, context) {
      requireSandbox(ctx);
      return {
        account: (
          await sandbox(context).getBankAccount(
            create(GetBankAccountRequestSchema, { customerId: req.customerId }),
            context,
          )
        ).account,
      };
    },
    async configureSandboxBankAccount(req, context) {
      requireSandbox(ctx);
      return { account: (await sandbox(context).configureBankAccount(req.settings!, context)).account };
    },
    async setSandboxBankMaintenance(req, context) {
      requireSandbox(ctx);
      return {
        underMaintenance: (await sandbox(context).setBankMaintenance(req.settings!, context)).underMaintenance,
      };
    },
  };
}
