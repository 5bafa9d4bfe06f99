import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { CsvBatchSchema, type CsvBatch, type DashboardService } from "../../gen/payments/v1/dashboard_service_pb.js";
import {
  confirmCsvBatch,
  csvBatchResult,
  csvBatchRows,
  getCsvBatch,
  listRecentCsvBatches,
  newCsvBatchChallenge,
  uploadCsvBatch,
  type CsvBatchView,
} from "../flows/dashboard-csv-batch.js";
import type { FlowContext } from "../flows/flow-context.js";
import { dashboardPrincipalOf } from "./dashboard-session.js";
import { auditedContext } from "./dashboard-team.js";
import { limits } from "../domain/limits.js";

type CsvBatchMethods =
  | "listCsvBatchRows"
  | "uploadCsvBatch"
  | "createCsvBatchChallenge"
  | "confirmCsvBatch"
  | "getCsvBatch"
  | "listCsvBatches"
  | "downloadCsvBatchResult";

/** CSV batches (docs/guide/csv-batches.md); spread into DashboardService. */
export function createCsvBatchHandlers(ctx: FlowContext): Pick<ServiceImpl<typeof DashboardService>, CsvBatchMethods> {
  const audited = (context: HandlerContext) => auditedContext(ctx, context);
  return {
    async listCsvBatchRows(req, context) {
      const result = await csvBatchRows(ctx, dashboardPrincipalOf(context), req.batchId, req.failedOnly);
      return {
        rows: result.rows.map((row) => ({
          rowNumber: row.rowNumber,
          customerEmail: row.cells[0] ?? "",
          customerId: row.cells[1] ?? "",
          price: row.cells[2] ?? "",
          description: row.cells[3] ?? "",
          status: row.status,
          reason: row.reason,
          reasonJa: row.reasonJa,
          chargeId: row.chargeId,
        })),
        validCount: result.validCount,
        invalidCount: result.invalidCount,
        validAmount: BigInt(result.validAmount),
      };
    },
    async uploadCsvBatch(req, context) {
      const uploaded = await uploadCsvBatch(audited(context), dashboardPrincipalOf(context), {
        fileName: req.fileName,
        content: req.content,
      });
      return {
        batchId: uploaded.batch.id,
        rowCount: uploaded.batch.rowCount,
        challengeId: uploaded.challenge.id,
        challengeExpiresAt: timestampFromDate(uploaded.challenge.expiresAt),
        invalidRowCount: uploaded.invalidRowCount,
        expiresAt: timestampFromDate(uploaded.batch.expiresAt),
      };
    },
    async createCsvBatchChallenge(req, context) {
      const challenge = await newCsvBatchChallenge(ctx, dashboardPrincipalOf(context), req.batchId);
      return { challengeId: challenge.id, challengeExpiresAt: timestampFromDate(challenge.expiresAt) };
    },
    async confirmCsvBatch(req, context) {
      return { batch: encodeBatch(await confirmCsvBatch(audited(context), dashboardPrincipalOf(context), req)) };
    },
    async getCsvBatch(req, context) {
      return { batch: encodeBatch(await getCsvBatch(ctx, dashboardPrincipalOf(context), req.batchId)) };
    },
    async listCsvBatches(req, context) {
      return {
        batches: (
          await listRecentCsvBatches(ctx, dashboardPrincipalOf(context), req.pageSize || limits.pageSizeDefault)
        ).map(encodeBatch),
      };
    },
    async downloadCsvBatchResult(req, context) {
      const result = await csvBatchResult(ctx, dashboardPrincipalOf(context), req.batchId);
      return { fileName: result.fileName, content: new TextEncoder().encode(result.content) };
    },
  };
}

function encodeBatch(batch: CsvBatchView): CsvBatch {
  return create(CsvBatchSchema, {
    batchId: batch.id,
    status: batch.status,
    rowCount: batch.rowCount,
    succeeded: batch.succeeded,
    failed: batch.failed,
    processing: batch.processing,
    createdAt: timestampFromDate(batch.createdAt),
    completedAt: batch.completedAt && timestampFromDate(batch.completedAt),
    fileName: batch.fileName,
    expiresAt: timestampFromDate(batch.expiresAt),
  });
}
