import type { ServiceImpl } from "@connectrpc/connect";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import type { FlowContext } from "../flows/flow-context.js";
import { getIdempotencyRecord } from "../flows/idempotency.js";
import { merchantOf } from "./request-context.js";

/** PaymentService.GetIdempotencyRecord; spread into the PaymentService implementation. */
export function createIdempotencyHandlers(
  ctx: FlowContext,
): Pick<ServiceImpl<typeof PaymentService>, "getIdempotencyRecord"> {
  return {
    async getIdempotencyRecord(req, context) {
      const record = await getIdempotencyRecord(ctx, merchantOf(context), req.idempotencyKey);
      return {
        idempotencyKey: record.key,
        method: record.method,
        inFlight: record.state === "in_flight",
        responseJson: record.responseJson,
        httpStatus: record.httpStatus,
        createdAt: timestampFromDate(record.createdAt),
        expiresAt: timestampFromDate(record.expiresAt),
      };
    },
  };
}
