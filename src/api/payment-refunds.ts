import type { ServiceImpl } from "@connectrpc/connect";
import type { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import type { FlowContext } from "../flows/flow-context.js";
import { getRefund, refundCharge } from "../flows/refund.js";
import { idempotencyScopeKey, merchantOf } from "./request-context.js";
import { encodeCharge, encodeRefund } from "./encode.js";

/** PaymentService.Refund and GetRefund; spread into the PaymentService implementation. */
export function createRefundHandlers(
  ctx: FlowContext,
): Pick<ServiceImpl<typeof PaymentService>, "refund" | "getRefund"> {
  return {
    async refund(req, context) {
      const input = { chargeId: req.chargeId, amount: req.amount, reason: req.reason, metadata: req.metadata };
      const outcome = await refundCharge(ctx, merchantOf(context), input, context.values.get(idempotencyScopeKey));
      return { refund: encodeRefund(outcome.refund), charge: encodeCharge(outcome.charge) };
    },
    async getRefund(req, context) {
      return { refund: encodeRefund(await getRefund(ctx, merchantOf(context), req.refundId)) };
    },
  };
}
