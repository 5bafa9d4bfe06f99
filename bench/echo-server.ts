// The baseline: a bare connect-node server (no auth, no validation, no database), on the same
// listener code path as furikomi. It answers each method with the answer furikomi gave the same
// request in this run (bench/run.ts puts it with `PUT /answers/<Method>`), so both serialize the
// same message to the same bytes; until then, with an empty answer.
import { create, fromJson, type DescMessage, type JsonValue, type Message } from "@bufbuild/protobuf";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { PaymentService } from "../gen/payments/v1/payment_service_pb.js";

const answers = new Map<string, Message>();
const answerOf = (method: string, schema: DescMessage) => answers.get(method) ?? create(schema);
const { getCharge, createOffSessionPaymentAsync, createOnSessionPayment, refund } = PaymentService.method;

const handler = connectNodeAdapter({
  routes: (router) =>
    router.service(PaymentService, {
      getCharge: () => answerOf(getCharge.name, getCharge.output) as never,
      createOffSessionPaymentAsync: () =>
        answerOf(createOffSessionPaymentAsync.name, createOffSessionPaymentAsync.output) as never,
      createOnSessionPayment: () => answerOf(createOnSessionPayment.name, createOnSessionPayment.output) as never,
      refund: () => answerOf(refund.name, refund.output) as never,
    }),
  // An HTTP/1.1 server: its requests are IncomingMessages.
  fallback: (req, res) => putAnswer(req as IncomingMessage, res as ServerResponse),
});

/** `PUT /answers/GetCharge` with furikomi's JSON answer: the method answers that message from now on. */
function putAnswer(req: IncomingMessage, res: ServerResponse): void {
  const method = PaymentService.methods.find((m) => req.url === `/answers/${m.name}`);
  if (req.method !== "PUT" || !method) {
    res.writeHead(404).end();
    return;
  }
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (chunk: string) => {
    body += chunk;
  });
  req.on("end", () => {
    answers.set(method.name, fromJson(method.output, JSON.parse(body) as JsonValue, { ignoreUnknownFields: true }));
    res.writeHead(204).end();
  });
}

const server = createServer(handler).listen(0, "127.0.0.1", () => {
  const address = server.address();
  console.log(
    JSON.stringify({ msg: "echo listening", port: typeof address === "object" && address ? address.port : 0 }),
  );
});
