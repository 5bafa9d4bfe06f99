import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  PaymentService,
  type CreateOnSessionPaymentRequestSchema,
  type CreateOnSessionPaymentResponse,
} from "../../gen/payments/v1/payment_service_pb.js";
import { HostedPageService } from "../../gen/payments/v1/hosted_page_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import type { TestServer } from "./test-server.js";

let emailCounter = 0;

/** A fresh customer e-mail, unique in the run. */
export function freshEmail(label = "buyer"): string {
  return `${label}.${process.pid}.${++emailCounter}@example.jp`;
}

export const redirect = {
  successUrl: "https://shop.example.jp/thanks?order=42",
  failureUrl: "https://shop.example.jp/sorry",
};

type OnSessionInit = MessageInitShape<typeof CreateOnSessionPaymentRequestSchema>;

/** CreateOnSessionPayment over Connect with sensible defaults (a new customer paying ¥1,200). */
export function createPayment(
  server: TestServer,
  init: OnSessionInit = {},
  apiKey?: string,
): Promise<CreateOnSessionPaymentResponse> {
  return server.client(PaymentService, apiKey).createOnSessionPayment({
    buyer: { email: freshEmail(), ...init.buyer },
    charge: "charge" in init ? init.charge : { price: 1200, description: "Coffee beans", metadata: { order: "42" } },
    redirect: init.redirect ?? redirect,
  });
}

/** The token of a payment link URL (…/pay/<token>). */
export function tokenOf(paymentLinkUrl: string): string {
  return new URL(paymentLinkUrl).pathname.split("/").pop()!;
}

/** The newest code the sandbox mailbox holds for an address (a later notice without a code is passed over). */
export async function latestCode(server: TestServer, email: string, apiKey?: string): Promise<string> {
  const { messages } = await server.client(SandboxService, apiKey).listMailbox({ email });
  return messages.find((message) => message.code)?.code ?? "";
}

/**
 * The customer's first steps through HostedPageService RPCs, as the page makes them: the payment
 * shown (its session, answered before any step), the code verified, the demo account linked when asked.
 */
export async function throughBankStep(
  server: TestServer,
  paymentLinkUrl: string,
  options: { email: string; apiKey?: string },
) {
  const page = server.client(HostedPageService);
  const token = tokenOf(paymentLinkUrl);
  const initiated = await page.initiatePayment({ token });
  if (initiated.result?.outcome.case !== "session")
    throw new Error(`InitiatePayment answered ${initiated.result?.outcome.case}`);
  const session = initiated.result.outcome.value;
  await page.sendTwoFactorCode({ token });
  const { verified } = await page.verifyTwoFactorCode({
    token,
    code: await latestCode(server, options.email, options.apiKey),
  });
  if (!verified) throw new Error("code not accepted");
  if (session.needsBankLink)
    await page.linkBankAccount({
      token,
      bankCode: "0001",
      branchCode: "001",
      accountNumber: "1234567",
      accountHolder: "ヤマダ タロウ",
    });
  return { token, session };
}

/** The customer's steps through HostedPageService RPCs, as the page makes them. */
export async function payStepByStep(
  server: TestServer,
  paymentLinkUrl: string,
  options: { email: string; kyc?: boolean; apiKey?: string } = { email: "" },
) {
  const page = server.client(HostedPageService);
  const { token } = await throughBankStep(server, paymentLinkUrl, options);
  if (options.kyc) {
    await page.submitKyc({
      token,
      name: "山田 太郎",
      katakanaLastName: "ヤマダ",
      katakanaFirstName: "タロウ",
      birthDate: "1990-04-01",
      address: "東京都千代田区1-1",
      gender: "male",
    });
  }
  return page.approvePayment({ token });
}

/** The outbox rows about a charge, oldest first (delivery is the webhooks module's business). */
export async function eventsAbout(server: TestServer, chargeId: string) {
  const rows = await server.ctx.tx.db
    .selectFrom("events")
    .select(["event_type_name", "content_json", "merchant_id"])
    .where("charge_id", "=", chargeId)
    .orderBy("created_at")
    .execute();
  return rows.map((row) => ({
    type: row.event_type_name,
    content: JSON.parse(row.content_json),
    merchantId: row.merchant_id,
  }));
}

/** Every outbox row of a merchant with the given type (e.g. contract events, which carry no charge id). */
export async function eventsOfType(server: TestServer, merchantId: string, type: string) {
  const rows = await server.ctx.tx.db
    .selectFrom("events")
    .select(["content_json"])
    .where("merchant_id", "=", merchantId)
    .where("event_type_name", "=", type)
    .execute();
  return rows.map((row) => JSON.parse(row.content_json));
}
