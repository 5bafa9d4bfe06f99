import type { ServiceImpl } from "@connectrpc/connect";
import type { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import type { FlowContext } from "../flows/flow-context.js";
import { getCharge, getContract, getCustomer, listRefunds, searchCustomers } from "../flows/status.js";
import { merchantOf } from "./request-context.js";
import { encodeCharge, encodeContract, encodeCustomer, encodeRefund } from "./encode.js";
import { contractMandate } from "../flows/mandates.js";
import { createRefundHandlers } from "./payment-refunds.js";
import { createEventHandlers } from "./payment-events.js";
import { createOffSessionHandlers } from "./payment-off-session.js";
import { createIdempotencyHandlers } from "./payment-idempotency.js";
import { createOnSessionHandlers } from "./payment-on-session.js";

/** PaymentService: decode, call a flow, encode. Methods not yet built answer `unimplemented`. */
export function createPaymentService(ctx: FlowContext): Partial<ServiceImpl<typeof PaymentService>> {
  return {
    ...createRefundHandlers(ctx),
    ...createEventHandlers(ctx),
    ...createOffSessionHandlers(ctx),
    ...createIdempotencyHandlers(ctx),
    ...createOnSessionHandlers(ctx),
    async getCharge(req, context) {
      const { charge, refunds, refundsTruncated, debitDate } = await getCharge(ctx, merchantOf(context), req.charge);
      return { charge: encodeCharge(charge, refunds, refundsTruncated, debitDate) };
    },
    async listRefunds(req, context) {
      const page = await listRefunds(ctx, merchantOf(context), req);
      return { refunds: page.refunds.map(encodeRefund), nextPageToken: page.nextPageToken };
    },
    async getContract(req, context) {
      const merchant = merchantOf(context);
      const contract = await getContract(ctx, merchant, req.contract);
      return {
        contract: encodeContract(contract, merchant.name, await contractMandate(ctx, merchant.id, contract.id)),
      };
    },
    async getCustomer(req, context) {
      return { customer: encodeCustomer(await getCustomer(ctx, merchantOf(context), req.customer)) };
    },
    async listCustomers(req, context) {
      const page = await searchCustomers(ctx, merchantOf(context), req);
      return { customers: page.customers.map(encodeCustomer), nextPageToken: page.nextPageToken };
    },
  };
}
