import { create } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { EventType } from "../../gen/payments/v1/enums_pb.js";
import type { ChargeTimelineEntry as DomainTimelineEntry } from "../domain/charge-timeline.js";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  ChargeTimelineEntrySchema,
  ChargeTimelineKind,
  type ChargeTimelineEntry,
  ExportChargesRequestSchema,
  PayerSchema,
  type ChargeFilter,
  type DashboardService,
  type Payer,
} from "../../gen/payments/v1/dashboard_service_pb.js";
import { chargeExportChunk, chargeExportFileName } from "../domain/charge-export.js";
import { emailPrefixKey } from "../domain/customer-search.js";
import { RefundRefusedFailure, refundRefusalReasons } from "../domain/refund.js";
import { RequestRefusal } from "../domain/request-refusal.js";
import {
  chargeDetail,
  chargesForExport,
  customerDetail,
  findCustomers,
  listCharges,
  type ChargeSearch,
  type PayerRow,
} from "../flows/dashboard.js";
import type { FlowContext } from "../flows/flow-context.js";
import { contractMandate } from "../flows/mandates.js";
import { dashboardMerchantOf, steppedUpMerchant } from "./dashboard-session.js";
import { auditedContext } from "./dashboard-team.js";
import { encodeCharge, encodeContract, encodeCustomer, encodeStopRequest } from "./encode.js";
import { createRefundHandlers } from "./payment-refunds.js";
import { requireValid } from "./require-valid.js";

type ChargeMethods =
  | "searchCustomers"
  | "getCustomerDetail"
  | "listCharges"
  | "exportCharges"
  | "getChargeDetail"
  | "refundCharge";

/** Customers, charges, their export and refunds (docs/guide/dashboard.md); spread into DashboardService. */
export function createChargeHandlers(ctx: FlowContext): Pick<ServiceImpl<typeof DashboardService>, ChargeMethods> {
  const merchantOf = dashboardMerchantOf;
  // Made per call with the flow context of the person calling, so the refund is audited.
  const refunds = (context: HandlerContext) => createRefundHandlers(auditedContext(ctx, context));
  return {
    async searchCustomers(req, context) {
      const page = await findCustomers(ctx, merchantOf(context), req);
      return {
        customers: page.customers.map(encodeCustomer),
        nextPageToken: page.nextPageToken,
        payers: page.payers.map(encodePayer),
      };
    },
    async getCustomerDetail(req, context) {
      const merchant = merchantOf(context);
      const detail = await customerDetail(ctx, merchant, req.customerId);
      return {
        customer: encodeCustomer(detail.customer),
        contracts: await Promise.all(
          detail.contracts.map(async (contract) =>
            encodeContract(contract, merchant.name, await contractMandate(ctx, merchant.id, contract.id)),
          ),
        ),
        charges: detail.charges.map(({ charge, refunds }) => encodeCharge(charge, refunds)),
        chargesTruncated: detail.chargesTruncated,
        stopRequests: detail.stopRequests.map(encodeStopRequest),
      };
    },
    async listCharges(req, context) {
      const page = await listCharges(ctx, merchantOf(context), {
        ...chargeSearchOf(req.customerId, req.filter),
        pageSize: req.pageSize,
        pageToken: req.pageToken,
      });
      return {
        charges: page.charges.map(({ charge, refunds }) => encodeCharge(charge, refunds)),
        nextPageToken: page.nextPageToken,
        payers: page.payers.map(encodePayer),
      };
    },
    async *exportCharges(req, context) {
      // A server-streaming call passes the validation interceptor by; its rules are checked here.
      requireValid(ExportChargesRequestSchema, req);
      const merchant = merchantOf(context);
      const fileName = chargeExportFileName(ctx.clock.now());
      let first = true;
      for await (const page of chargesForExport(ctx, merchant, chargeSearchOf(req.customerId, req.filter))) {
        yield {
          fileName: first ? fileName : "",
          chunk: new TextEncoder().encode(chargeExportChunk(page, first, req.layout)),
        };
        first = false;
      }
      if (first) yield { fileName, chunk: new TextEncoder().encode(chargeExportChunk([], true, req.layout)) };
    },
    async getChargeDetail(req, context) {
      const detail = await chargeDetail(ctx, merchantOf(context), req.chargeId);
      return {
        charge: encodeCharge(detail.charge, detail.refunds, detail.refundsTruncated),
        customer: detail.customer && encodeCustomer(detail.customer),
        payer: detail.payer && encodePayer(detail.payer),
        timeline: detail.timeline.map(encodeTimelineEntry),
      };
    },
    async refundCharge(req, context) {
      steppedUpMerchant(ctx, context);
      try {
        const { refund, charge } = await refunds(context).refund(req.refund!, context);
        return { result: { refund, charge } };
      } catch (error) {
        throw dashboardRefundRefusal(error);
      }
    },
  };
}

/**
 * The dashboard shows a refused refund in the user's language, so it gets the rule as an ErrorInfo
 * reason (REFUND_EXCEEDS_REFUNDABLE, …: docs/guide/dashboard.md#refunds); PaymentService.Refund
 * keeps the contract's bare messages.
 */
function dashboardRefundRefusal(error: unknown): unknown {
  if (!(error instanceof RefundRefusedFailure)) return error;
  const reason = refundRefusalReasons[error.refusal];
  return new RequestRefusal(error.refusal === "notOwned" ? "not_found" : "precondition", error.message, { reason });
}

/** A ListCharges / ExportCharges filter as the flow's search. */
function chargeSearchOf(customerId: string, filter: ChargeFilter | undefined): ChargeSearch {
  return {
    customerId: customerId || undefined,
    statuses: filter?.statuses,
    createdFrom: filter?.createdFrom && timestampDate(filter.createdFrom).toISOString(),
    createdBefore: filter?.createdBefore && timestampDate(filter.createdBefore).toISOString(),
    minAmount: filter?.minAmount,
    maxAmount: filter?.maxAmount,
    customerEmailPrefix: filter?.customerEmail ? emailPrefixKey(filter.customerEmail) : undefined,
  };
}

const timelineKinds: Readonly<Record<DomainTimelineEntry["kind"], ChargeTimelineKind>> = {
  created: ChargeTimelineKind.CREATED,
  mandateAccepted: ChargeTimelineKind.MANDATE_ACCEPTED,
  customerCompleted: ChargeTimelineKind.CUSTOMER_COMPLETED,
  bankFiled: ChargeTimelineKind.BANK_FILED,
  succeeded: ChargeTimelineKind.SUCCEEDED,
  failed: ChargeTimelineKind.FAILED,
  refundAccepted: ChargeTimelineKind.REFUND_ACCEPTED,
  refundSettled: ChargeTimelineKind.REFUND_SETTLED,
  refundFailed: ChargeTimelineKind.REFUND_FAILED,
  cancelled: ChargeTimelineKind.CANCELLED,
  webhookDelivered: ChargeTimelineKind.WEBHOOK_DELIVERED,
};

function encodeTimelineEntry(entry: DomainTimelineEntry): ChargeTimelineEntry {
  return create(ChargeTimelineEntrySchema, {
    at: timestampFromDate(entry.at),
    kind: timelineKinds[entry.kind],
    refundId: entry.refundId ?? "",
    amount: entry.amount ?? 0,
    eventType: entry.eventType ?? EventType.UNSPECIFIED,
    resultCode: entry.resultCode,
    fileName: entry.fileName ?? "",
  });
}

function encodePayer(payer: PayerRow): Payer {
  return create(PayerSchema, payer);
}
