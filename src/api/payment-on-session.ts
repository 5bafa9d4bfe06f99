import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { PaymentWorkflow } from "../../gen/payments/v1/enums_pb.js";
import type { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import type { FlowContext } from "../flows/flow-context.js";
import { createOnSessionPayment } from "../flows/on-session.js";
import { idempotencyScopeKey, merchantOf } from "./request-context.js";

/** PaymentService.CreateOnSessionPayment (POST /v1/payments/on-session). */
export function createOnSessionHandlers(
  ctx: FlowContext,
): Pick<ServiceImpl<typeof PaymentService>, "createOnSessionPayment"> {
  return {
    async createOnSessionPayment(req, context) {
      const { link, customer, url } = await createOnSessionPayment(
        ctx,
        merchantOf(context),
        {
          buyer: {
            email: req.buyer?.email ?? "",
            customerId: req.buyer?.customerId ?? "",
            forceKyc: req.buyer?.forceKyc ?? false,
            name: req.buyer?.name ?? "",
            katakanaLastName: req.buyer?.katakanaLastName ?? "",
            katakanaFirstName: req.buyer?.katakanaFirstName ?? "",
            address: req.buyer?.address ?? "",
            birthDate: req.buyer?.birthDate ?? "",
            gender: req.buyer?.gender ?? "",
            metadata: req.buyer?.metadata ?? {},
          },
          charge: {
            price: req.charge?.price,
            description: req.charge?.description ?? "",
            metadata: req.charge?.metadata ?? {},
            oneOff: req.charge?.oneOffCharge ?? false,
          },
          redirect: { successUrl: req.redirect?.successUrl ?? "", failureUrl: req.redirect?.failureUrl ?? "" },
        },
        context.values.get(idempotencyScopeKey),
      );
      const expiresAt = timestampFromDate(link.expiresAt);
      return {
        charge: {
          id: link.id,
          price: link.price,
          description: link.description,
          metadata: link.metadata,
          // docs/reference/contract.md#on-session: absent for one-off charges.
          customer: {
            id: link.workflow === PaymentWorkflow.ONE_TIME_CHARGE ? undefined : customer.id,
            email: customer.email,
            createdAt: timestampFromDate(customer.createdAt),
            updatedAt: timestampFromDate(customer.updatedAt),
          },
          expiresAt,
          chargeId: link.chargeId ?? "",
          workflow: link.workflow,
          contractId: link.contractId ?? "",
        },
        paymentLink: { url, expiresAt },
      };
    },
  };
}
