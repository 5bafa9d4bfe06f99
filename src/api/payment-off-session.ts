import type { ServiceImpl } from "@connectrpc/connect";
import type { CreateOffSessionPaymentRequest, PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import type { FlowContext } from "../flows/flow-context.js";
import {
  createOffSessionPayment,
  createOffSessionPaymentAsync,
  getAsyncPaymentRequest,
  type OffSessionInput,
} from "../flows/off-session.js";
import { chargeDebitDate } from "../flows/status.js";
import { idempotencyScopeKey, merchantOf } from "./request-context.js";
import { encodeAsyncRequest, encodeCharge } from "./encode.js";

/** The off-session methods; spread into the PaymentService implementation. */
export function createOffSessionHandlers(
  ctx: FlowContext,
): Pick<
  ServiceImpl<typeof PaymentService>,
  "createOffSessionPaymentAsync" | "createOffSessionPayment" | "getAsyncPaymentRequest"
> {
  return {
    async createOffSessionPaymentAsync(req, context) {
      const request = await createOffSessionPaymentAsync(
        ctx,
        merchantOf(context),
        offSessionInput(req),
        context.values.get(idempotencyScopeKey),
      );
      const { requestId, status, chargeId, error } = encodeAsyncRequest(request);
      return { requestId, status, chargeId, error, debitDate: await chargeDebitDate(ctx, chargeId) };
    },
    async createOffSessionPayment(req, context) {
      const charge = await createOffSessionPayment(
        ctx,
        merchantOf(context),
        offSessionInput(req),
        context.values.get(idempotencyScopeKey),
      );
      return { charge: encodeCharge(charge, [], false, await chargeDebitDate(ctx, charge.id)) };
    },
    async getAsyncPaymentRequest(req, context) {
      return { request: encodeAsyncRequest(await getAsyncPaymentRequest(ctx, merchantOf(context), req.requestId)) };
    },
  };
}

/** The sync and async requests have the same fields. */
function offSessionInput(
  req: Pick<CreateOffSessionPaymentRequest, "customerId" | "charge" | "forceKyc">,
): OffSessionInput {
  return {
    customerId: req.customerId,
    price: req.charge?.price ?? 0,
    description: req.charge?.description ?? "",
    metadata: req.charge?.metadata ?? {},
    forceKyc: req.forceKyc,
  };
}
