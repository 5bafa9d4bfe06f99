import { ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { expect } from "vitest";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { CustomerAppService } from "../../gen/payments/v1/customer_app_service_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import type { CreatedMerchant } from "../../src/flows/merchants.js";
import { readOperatorMailbox } from "../../src/flows/sandbox.js";
import { createPayment, freshEmail, payStepByStep } from "./on-session.js";
import type { TestServer } from "./test-server.js";

/** What a customer with two merchants has, as the customer app should show it. */
export interface CustomerWorld {
  email: string;
  first: CreatedMerchant;
  second: CreatedMerchant;
  /** The first merchant: a paid on-session charge (partly refunded), and a triggered failure. */
  refundedChargeId: string;
  failedChargeId: string;
  firstContractId: string;
  /** The second merchant: a paid on-session charge. */
  paidChargeId: string;
  secondContractId: string;
}

/** One paid on-session payment that sets up a contract (and its mandate) for the e-mail. */
async function paidLink(
  server: TestServer,
  merchant: CreatedMerchant,
  buyer: { email: string; name?: string },
  price: number,
  what: string,
) {
  const { email } = buyer;
  const created = await createPayment(server, { buyer, charge: { price, description: what } }, merchant.api_key);
  await payStepByStep(server, created.paymentLink!.url, { email, apiKey: merchant.api_key });
  await server.jobs.drain();
  const charge = await server.client(PaymentService, merchant.api_key).getCharge({ charge: created.charge!.chargeId });
  expect(charge.charge?.chargeStatus).toBe(ChargeStatus.SUCCESS);
  return {
    chargeId: created.charge!.chargeId,
    contractId: created.charge!.contractId,
    customerId: charge.charge!.customerId,
  };
}

/**
 * Through the API, as merchants and the customer would: the customer pays two merchants on their
 * hosted pages; the first charges them again off-session with a sandbox-triggered failure
 * (insufficient funds) and refunds ¥500 of the first payment. `name` is the name the first merchant
 * gives the customer (the second gives none).
 */
export async function customerWithTwoMerchants(
  server: TestServer,
  label = "customer",
  name = "",
): Promise<CustomerWorld> {
  const email = freshEmail(label);
  const first = server.merchant;
  const second = await server.newMerchant("Second Shop 二号店");
  const a = await paidLink(server, first, { email, name }, 1500, "定期便 11月分");
  server.clock.advance(60_000);
  const b = await paidLink(server, second, { email }, 2400, "Monthly plan");
  server.clock.advance(60_000);
  const failedChargeId = await server
    .client(PaymentService, first.api_key)
    .createOffSessionPaymentAsync({
      customerId: a.customerId,
      charge: {
        price: 3000,
        description: "定期便 12月分",
        metadata: { triggerError: "ERROR_TYPE_PAYMENT_CHARGE_INSUFFICIENT_FUNDS" },
      },
    })
    .then(
      () => "",
      (error) => ConnectError.from(error).findDetails(ErrorInfoSchema)[0]?.metadata.chargeId ?? "",
    );
  expect(failedChargeId).toMatch(/^trx-/);
  await server.client(PaymentService, first.api_key).refund({ chargeId: a.chargeId, amount: 500, reason: "欠品" });
  return {
    email,
    first,
    second,
    refundedChargeId: a.chargeId,
    failedChargeId,
    firstContractId: a.contractId,
    paidChargeId: b.chargeId,
    secondContractId: b.contractId,
  };
}

/** A customer-app client as the page is one: it keeps the session cookie and sends the CSRF token. */
export function customerAppClient(server: TestServer): {
  client: Client<typeof CustomerAppService>;
  cookies: Map<string, string>;
} {
  const cookies = new Map<string, string>();
  const transport = createConnectTransport({
    baseUrl: `${server.url}/app`,
    httpVersion: "1.1",
    interceptors: [
      (next) => async (req) => {
        if (cookies.size > 0)
          req.header.set("cookie", [...cookies].map(([name, value]) => `${name}=${value}`).join("; "));
        const csrf = cookies.get("furikomi_app_csrf");
        if (csrf) req.header.set("x-csrf-token", csrf);
        const res = await next(req);
        for (const line of res.header.getSetCookie()) {
          const [pair] = line.split(";");
          const at = pair.indexOf("=");
          const value = pair.slice(at + 1);
          if (value) cookies.set(pair.slice(0, at), value);
          else cookies.delete(pair.slice(0, at));
        }
        return res;
      },
    ],
  });
  return { client: createClient(CustomerAppService, transport), cookies };
}

/**
 * The newest customer-app sign-in code sent to the e-mail: the job that mails it run first, then
 * read from the operator's sandbox mailbox (no merchant's key reads it: docs/guide/sandbox.md#the-mailbox).
 */
export async function appSignInCode(server: TestServer, email: string): Promise<string> {
  await server.jobs.drain();
  const [message] = await readOperatorMailbox(server.ctx, email);
  if (!message?.code) throw new Error(`no sign-in code was mailed to ${email}`);
  return message.code;
}

/** Signs in with the code from the operator's sandbox mailbox. */
export async function signInCustomer(server: TestServer, email: string) {
  const app = customerAppClient(server);
  await app.client.sendSignInCode({ email });
  const { verified } = await app.client.verifySignInCode({ email, code: await appSignInCode(server, email) });
  expect(verified).toBe(true);
  return app;
}
