import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  type DashboardService,
  type SubscriptionImport,
  SubscriptionImportSchema,
} from "../../gen/payments/v1/dashboard_service_pb.js";
import { limits } from "../domain/limits.js";
import type { FlowContext } from "../flows/flow-context.js";
import {
  confirmSubscriptionImport,
  getSubscriptionImport,
  listRecentSubscriptionImports,
  newSubscriptionImportChallenge,
  subscriptionImportResult,
  subscriptionImportRows,
  type SubscriptionImportView,
  uploadSubscriptionImport,
} from "../flows/subscription-import.js";
import { dashboardPrincipalOf } from "./dashboard-session.js";
import { auditedContext } from "./dashboard-team.js";

type SubscriptionImportMethods =
  | "uploadSubscriptionImport"
  | "listSubscriptionImportRows"
  | "createSubscriptionImportChallenge"
  | "confirmSubscriptionImport"
  | "getSubscriptionImport"
  | "listSubscriptionImports"
  | "downloadSubscriptionImportResult";

/** The CSV import of subscriptions (docs/guide/recurring-billing.md#importing-subscriptions-from-a-csv-file). */
export function createSubscriptionImportHandlers(
  ctx: FlowContext,
): Pick<ServiceImpl<typeof DashboardService>, SubscriptionImportMethods> {
  const audited = (context: HandlerContext) => auditedContext(ctx, context);
  return {
    async uploadSubscriptionImport(req, context) {
      const uploaded = await uploadSubscriptionImport(audited(context), dashboardPrincipalOf(context), {
        fileName: req.fileName,
        content: req.content,
      });
      return {
        subscriptionImport: encodeImport(uploaded.view),
        challengeId: uploaded.challenge.id,
        challengeExpiresAt: timestampFromDate(uploaded.challenge.expiresAt),
        invalidRowCount: uploaded.invalidRowCount,
      };
    },
    async listSubscriptionImportRows(req, context) {
      const result = await subscriptionImportRows(ctx, dashboardPrincipalOf(context), req.importId, req.failedOnly);
      return {
        rows: result.rows.map((row) => ({
          rowNumber: row.rowNumber,
          customerEmail: row.cells[0] ?? "",
          customerId: row.cells[1] ?? "",
          planId: row.cells[2] ?? "",
          startPeriod: row.cells[3] ?? "",
          amount: row.cells[4] ?? "",
          status: row.status,
          reason: row.reason,
          reasonJa: row.reasonJa,
          resolvedCustomerId: row.customerId,
          planName: row.planName,
          resolvedStartPeriod: row.startPeriod,
          firstPeriod: row.firstPeriod,
          firstDebitDate: row.firstDebitDate,
          firstAmount: row.firstAmount,
          subscriptionId: row.subscriptionId,
        })),
        validCount: result.validCount,
        invalidCount: result.invalidCount,
      };
    },
    async createSubscriptionImportChallenge(req, context) {
      const challenge = await newSubscriptionImportChallenge(ctx, dashboardPrincipalOf(context), req.importId);
      return { challengeId: challenge.id, challengeExpiresAt: timestampFromDate(challenge.expiresAt) };
    },
    async confirmSubscriptionImport(req, context) {
      const confirmed = await confirmSubscriptionImport(audited(context), dashboardPrincipalOf(context), {
        batchId: req.importId,
        challengeId: req.challengeId,
        code: req.code,
      });
      return { subscriptionImport: encodeImport(confirmed) };
    },
    async getSubscriptionImport(req, context) {
      return {
        subscriptionImport: encodeImport(await getSubscriptionImport(ctx, dashboardPrincipalOf(context), req.importId)),
      };
    },
    async listSubscriptionImports(req, context) {
      const imports = await listRecentSubscriptionImports(
        ctx,
        dashboardPrincipalOf(context),
        req.pageSize || limits.pageSizeDefault,
      );
      return { subscriptionImports: imports.map(encodeImport) };
    },
    async downloadSubscriptionImportResult(req, context) {
      const result = await subscriptionImportResult(ctx, dashboardPrincipalOf(context), req.importId);
      return { fileName: result.fileName, content: new TextEncoder().encode(result.content) };
    },
  };
}

function encodeImport(view: SubscriptionImportView): SubscriptionImport {
  return create(SubscriptionImportSchema, {
    importId: view.id,
    fileName: view.fileName,
    status: view.status,
    rowCount: view.rowCount,
    created: view.created,
    failed: view.failed,
    createdAt: timestampFromDate(view.createdAt),
    confirmedAt: view.confirmedAt && timestampFromDate(view.confirmedAt),
    expiresAt: timestampFromDate(view.expiresAt),
  });
}
