import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { DashboardService } from "../../gen/payments/v1/dashboard_service_pb.js";
import type { FlowContext } from "../flows/flow-context.js";
import { consignorSettings, updateConsignor, type ConsignorInput } from "../flows/merchants.js";
import { zenginFilesOfMerchant } from "../flows/zengin-dashboard-view.js";
import { dashboardMerchantOf } from "./dashboard-session.js";
import { auditedContext } from "./dashboard-team.js";

type ZenginMethods = "getConsignorSettings" | "updateConsignorSettings" | "listZenginFiles";

/** The Zengin consignor settings and files (docs/guide/direct-debit-files.md); spread into DashboardService. */
export function createZenginHandlers(ctx: FlowContext): Pick<ServiceImpl<typeof DashboardService>, ZenginMethods> {
  const merchantOf = dashboardMerchantOf;
  const audited = (context: HandlerContext) => auditedContext(ctx, context);
  return {
    async getConsignorSettings(_req, context) {
      return { settings: encodeConsignor(await consignorSettings(ctx, merchantOf(context).id)) };
    },
    async updateConsignorSettings(req, context) {
      const settings = req.settings!;
      const merchantId = merchantOf(context).id;
      await updateConsignor(audited(context), merchantId, {
        code: settings.code,
        name: settings.name,
        bankCode: settings.bankCode,
        bankName: settings.bankName,
        branchCode: settings.branchCode,
        branchName: settings.branchName,
        accountType: String(settings.accountType),
        accountNumber: settings.accountNumber,
        debitDay: settings.debitDay ? String(settings.debitDay) : "",
      });
      return { settings: encodeConsignor(await consignorSettings(ctx, merchantId)) };
    },
    async listZenginFiles(_req, context) {
      const view = await zenginFilesOfMerchant(ctx, merchantOf(context).id);
      return {
        files: view.files.map((file) => ({
          name: file.name,
          kind: file.kind,
          direction: file.direction,
          date: file.date,
          state: file.state,
          recordCount: file.recordCount,
          totalAmount: BigInt(file.totalAmount),
          doneCount: file.doneCount,
          doneAmount: BigInt(file.doneAmount),
          failedCount: file.failedCount,
          failedAmount: BigInt(file.failedAmount),
          reason: file.reason,
          createdAt: timestampFromDate(file.createdAt),
          overdue: file.overdue,
        })),
        debitDates: view.debitDates.map((date) => ({
          ...date,
          requestedAmount: BigInt(date.requestedAmount),
          debitedAmount: BigInt(date.debitedAmount),
          failedAmount: BigInt(date.failedAmount),
        })),
        quarantined: view.quarantined,
        overdue: view.overdue,
      };
    },
  };
}

/** The consignor settings as the dashboard shows them. */
function encodeConsignor(input: ConsignorInput) {
  return {
    code: input.code,
    name: input.name,
    bankCode: input.bankCode,
    bankName: input.bankName ?? "",
    branchCode: input.branchCode,
    branchName: input.branchName ?? "",
    accountType: Number(input.accountType || 0),
    accountNumber: input.accountNumber,
    debitDay: Number(input.debitDay || 0),
  };
}
