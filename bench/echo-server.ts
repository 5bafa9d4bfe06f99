// The baseline: a bare connect-node server answering GetCharge-shaped requests with a fixed
// charge (no auth, no validation, no database), on the same listener code path as furikomi.
import { create } from "@bufbuild/protobuf";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { createServer } from "node:http";
import { PaymentService } from "../gen/payments/v1/payment_service_pb.js";
import { ChargeSchema } from "../gen/payments/v1/resources_pb.js";

const charge = create(ChargeSchema, {
  chargeId: "trx-echo",
  chargeStatus: 3,
  description: "echo",
  initialAmount: 1200,
  finalAmount: 1200,
  currency: "JPY",
});
const handler = connectNodeAdapter({
  routes: (router) =>
    router.service(PaymentService, {
      getCharge: (req) => ({ charge: { ...charge, chargeId: req.charge } }),
      createOffSessionPaymentAsync: (req) => ({ requestId: "pwf-echo", status: 1, chargeId: req.customerId }),
      createOnSessionPayment: () => ({}),
      refund: () => ({}),
    }),
});
const server = createServer(handler).listen(0, "127.0.0.1", () => {
  const address = server.address();
  console.log(
    JSON.stringify({ msg: "echo listening", port: typeof address === "object" && address ? address.port : 0 }),
  );
});
