import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import type { FlowContext } from "../flows/flow-context.js";
import { createOffSessionPayment } from "../flows/off-session.js";
import { advanceClock, sendTestEvent } from "../flows/sandbox-events.js";
import { idempotencyScopeKey, merchantOf } from "./request-context.js";
import { encodeCharge } from "./encode.js";

/** SandboxService.Withdraw, SendTestEvent and AdvanceClock; spread into the SandboxService implementation. */
export function createSandboxOperationHandlers(
  ctx: FlowContext,
): Pick<ServiceImpl<typeof SandboxService>, "withdraw" | "sendTestEvent" | "advanceClock"> {
  return {
    // docs/reference/contract.md#sandbox: POST /api/v1/payment/withdraw — an off-session charge through the same engine (API_SOURCE_OFF_SESSION_SYNC).
    async withdraw(req, context) {
      const charge = await createOffSessionPayment(
        ctx,
        merchantOf(context),
        {
          customerId: req.merchantCustomerId,
          price: req.charge?.price ?? 0,
          description: req.charge?.description ?? "",
          metadata: req.charge?.metadata ?? {},
          forceKyc: false,
        },
        context.values.get(idempotencyScopeKey),
      );
      return { charge: encodeCharge(charge) };
    },
    async sendTestEvent(req, context) {
      return { eventId: await sendTestEvent(ctx, merchantOf(context), req.eventType) };
    },
    async advanceClock(req) {
      return { now: timestampFromDate(advanceClock(ctx, Number(req.seconds))) };
    },
  };
}
