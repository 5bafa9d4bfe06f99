import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { ConsignorSettings, DashboardService } from "../../gen/payments/v1/dashboard_service_pb.js";
import type { FlowContext } from "../flows/flow-context.js";
import {
  type ConsignorInput,
  consignorSettings,
  contractInputOf,
  merchantContracts,
  updateConsignor,
  updateContract,
} from "../flows/zengin-contracts.js";
import { zenginFileRecords, zenginFilesOfMerchant } from "../flows/zengin-dashboard-view.js";
import { dashboardMerchantOf } from "./dashboard-session.js";
import { auditedContext } from "./dashboard-team.js";

type ZenginMethods =
  | "getConsignorSettings"
  | "updateConsignorSettings"
  | "listConsignorContracts"
  | "updateConsignorContract"
  | "listZenginFiles"
  | "listZenginFileRecords";

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
      // The single-contract form: what it leaves empty stays as it is.
      const input = decodeConsignor(settings);
      await updateConsignor(audited(context), merchantId, {
        ...input,
        nameCharacters: input.nameCharacters || undefined,
      });
      return { settings: encodeConsignor(await consignorSettings(ctx, merchantId)) };
    },
    async listConsignorContracts(_req, context) {
      const contracts = await merchantContracts(ctx, merchantOf(context).id);
      return { contracts: contracts.map((contract) => encodeConsignor(contractInputOf(contract))) };
    },
    async updateConsignorContract(req, context) {
      const saved = await updateContract(
        audited(context),
        merchantOf(context).id,
        req.code,
        decodeConsignor(req.settings!),
      );
      return { settings: encodeConsignor(contractInputOf(saved)) };
    },
    async listZenginFiles(_req, context) {
      const view = await zenginFilesOfMerchant(ctx, merchantOf(context).id);
      return {
        files: view.files.map((file) => ({
          id: file.id,
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
        unexpectedFiles: view.unexpectedFiles.map((file) => ({
          name: file.name,
          firstSeenAt: timestampFromDate(file.firstSeenAt),
          state: file.state,
        })),
      };
    },
    async listZenginFileRecords(req, context) {
      const page = await zenginFileRecords(ctx, merchantOf(context).id, req);
      return {
        fileName: page.name,
        kind: page.kind,
        records: page.records.map((record) => ({
          customerNumber: record.customerNumber,
          reference: record.reference,
          chargeId: record.chargeId,
          customerId: record.customerId,
          amount: BigInt(record.amount),
          state: record.state,
          resultCode: record.resultCode ?? undefined,
        })),
        payers: page.payers,
        nextPageToken: page.nextPageToken,
      };
    },
  };
}

/** A contract as the dashboard shows it. */
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
    scope: input.scope ?? "",
    banks: input.banks ? input.banks.split(",") : [],
    transferCode: input.transferCode ?? "",
    nameCharacters: input.nameCharacters ?? "",
    resultStyle: input.resultStyle ?? "",
  };
}

/** A contract as the dashboard sends it, as the contracts flow takes it (its fields checked there). */
function decodeConsignor(settings: ConsignorSettings): ConsignorInput {
  return {
    code: settings.code,
    name: settings.name,
    bankCode: settings.bankCode,
    bankName: settings.bankName,
    branchCode: settings.branchCode,
    branchName: settings.branchName,
    accountType: String(settings.accountType),
    accountNumber: settings.accountNumber,
    debitDay: settings.debitDay ? String(settings.debitDay) : "",
    scope: settings.scope,
    banks: settings.banks.join(","),
    transferCode: settings.transferCode,
    nameCharacters: settings.nameCharacters,
    resultStyle: settings.resultStyle,
  };
}
