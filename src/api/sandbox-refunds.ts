import type { ServiceImpl } from "@connectrpc/connect";
import type { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import type { FlowContext } from "../flows/flow-context.js";
import { settleRefundsNow } from "../flows/refund.js";
import { merchantOf } from "./request-context.js";
import { encodeRefund } from "./encode.js";

/** SandboxService.SettleRefunds; spread into the SandboxService implementation. */
export function createSandboxRefundHandlers(
  ctx: FlowContext,
): Pick<ServiceImpl<typeof SandboxService>, "settleRefunds"> {
  return {
    async settleRefunds(req, context) {
      const refunds = await settleRefundsNow(ctx, merchantOf(context), {
        refundId: req.refundId,
        fail: req.fail,
        failureMessage: req.failureMessage,
      });
      return { refunds: refunds.map(encodeRefund) };
    },
  };
}
