import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toJsonString } from "@bufbuild/protobuf";
import { Code, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { ContractStatus, MandateVerification } from "../../gen/payments/v1/enums_pb.js";
import { HostedPageService } from "../../gen/payments/v1/hosted_page_service_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { ContractSchema } from "../../gen/payments/v1/resources_pb.js";
import { exportMandates } from "../../src/flows/mandates.js";
import { atBank, backLocation, returnFromBank } from "../helpers/bank-site.js";
import { refusal, signedInUser } from "../helpers/dashboard.js";
import { createPayment, freshEmail, latestCode, tokenOf } from "../helpers/on-session.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// The electronic mandate (口座振替): what the consent screen is given, the evidence recorded when
// the customer approves, and the summary the merchant sees on the contract.

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { WORKERS: "off" } });
});
afterAll(async () => server?.stop());

/** The page's client, as a browser sends it: with a user agent. */
const page = () =>
  createClient(
    HostedPageService,
    createConnectTransport({
      baseUrl: server.url,
      httpVersion: "1.1",
      interceptors: [
        (next) => (req) => {
          req.header.set("user-agent", "Mozilla/5.0 (iPhone) furikomi-test");
          return next(req);
        },
      ],
    }),
  );

async function linkedContract(bankCode: "0001" | "9901", charge = true) {
  const email = freshEmail();
  const created = await createPayment(server, {
    buyer: { email },
    charge: charge ? { price: 1500, description: "定期便" } : { description: "月額プラン" },
  });
  const token = tokenOf(created.paymentLink!.url);
  await page().sendTwoFactorCode({ token });
  await page().verifyTwoFactorCode({ token, code: await latestCode(server, email) });
  const chosen = await page().linkBankAccount({
    token,
    bankCode,
    branchCode: bankCode === "0001" ? "210" : "001",
    accountNumber: "7654567",
    accountHolder: "ヤマダ タロウ",
  });
  if (chosen.bankRedirectUrl)
    expect(await returnFromBank(server, backLocation(await atBank(server, chosen.bankRedirectUrl)))).toBe("verified");
  return { token, contractId: created.charge!.contractId };
}

const sessionOf = async (token: string) => {
  const answer = await page().initiatePayment({ token });
  if (answer.result?.outcome.case !== "session") throw new Error("no session");
  return answer.result.outcome.value;
};

describe("the consent screen", () => {
  it("is given the merchant's support contact, the masked account and the versioned terms", async () => {
    const ops = await signedInUser(server);
    const contact = { email: "help@shop.example.jp", phone: "03-1234-5678", url: "https://shop.example.jp/help" };
    expect((await ops.client.updateSupportContact({ contact })).contact).toEqual(expect.objectContaining(contact));
    expect((await ops.client.getSupportContact({})).contact).toEqual(expect.objectContaining(contact));
    expect(await refusal(ops.client.updateSupportContact({ contact: { ...contact, url: "http://x" } }))).toMatchObject({
      code: Code.InvalidArgument,
    });

    const { token } = await linkedContract("0001");
    const session = await sessionOf(token);
    expect(session.merchant).toMatchObject({
      name: "Test Shop",
      supportEmail: contact.email,
      supportPhone: contact.phone,
      supportUrl: contact.url,
    });
    expect(session.bankAccount?.display).toBe("みずほ銀行 渋谷支店 普通 ****567");
    expect(session.terms?.version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(session.terms?.text).toContain("口座振替");
    expect(session.terms?.text).toContain("Direct debit terms");
  });

  it("refuses an approval quoting terms that are no longer current, and records nothing", async () => {
    const { token, contractId } = await linkedContract("0001");
    const refused = await page().approvePayment({ token, termsVersion: "2000-01-01" });
    expect(refused.result?.outcome.case).toBe("error");
    const { contract } = await server.client(PaymentService).getContract({ contract: contractId });
    expect(contract?.mandate).toBeUndefined();
  });
});

describe("the mandate on record", () => {
  it("is recorded at approval with its evidence, shown on the contract masked, and exported", async () => {
    const { token, contractId } = await linkedContract("9901");
    const { terms } = await sessionOf(token);
    const approved = await page().approvePayment({ token, termsVersion: terms!.version });
    expect(approved.result?.outcome.case).toBe("success");
    if (approved.result?.outcome.case !== "success") return;
    expect(approved.result.outcome.value.completedAt).toBeDefined();

    const { contract } = await server.client(PaymentService).getContract({ contract: contractId });
    expect(contract?.status).toBe(ContractStatus.ACTIVATED);
    const mandate = contract!.mandate!;
    expect(mandate).toMatchObject({
      verification: MandateVerification.BANK_REDIRECT,
      termsVersion: terms!.version,
      userAgent: "Mozilla/5.0 (iPhone) furikomi-test",
      account: { display: "Sandbox Daily Window Bank 本店 普通 ****567", maskedAccountNumber: "****567" },
    });
    expect(mandate.id).toMatch(/^man-/);
    expect(mandate.clientAddress).toMatch(/127\.0\.0\.1/);
    expect(mandate.accountHash).toMatch(/^[0-9a-f]{64}$/);
    expect(mandate.verifiedAt).toBeDefined();
    expect(toJsonString(ContractSchema, contract!)).not.toContain("7654567");

    // The dashboard shows it on the customer's contract.
    const ops = await signedInUser(server);
    const detail = await ops.client.getCustomerDetail({ customerId: contract!.customerId });
    expect(detail.contracts.find((c) => c.tokenId === contractId)?.mandate?.id).toBe(mandate.id);

    // The export carries the terms text the customer accepted.
    const exported = await exportMandates(server.ctx, server.merchant.merchant_id, contractId);
    expect(exported).toHaveLength(1);
    expect(exported[0]).toMatchObject({ id: mandate.id, termsText: terms!.text, accountHash: mandate.accountHash });
    expect(JSON.stringify(exported)).not.toContain("7654567");
  });

  it("is never edited: the database refuses an update of the evidence", async () => {
    const { token } = await linkedContract("0001", false);
    await page().approvePayment({ token });
    const row = await server.ctx.tx.db
      .selectFrom("mandates")
      .select(["id", "account_sealed"])
      .executeTakeFirstOrThrow();
    expect(row.account_sealed).toMatch(/^sealed:v1:/);
    await expect(
      server.ctx.tx.db.updateTable("mandates").set({ terms_version: "forged" }).where("id", "=", row.id).execute(),
    ).rejects.toThrow(/never edited/);
  });

  it("a first-debit mandate is recorded without a bank confirmation time", async () => {
    const { token, contractId } = await linkedContract("0001", false);
    await page().approvePayment({ token });
    const { contract } = await server.client(PaymentService).getContract({ contract: contractId });
    expect(contract?.mandate?.verification).toBe(MandateVerification.FIRST_DEBIT);
    expect(contract?.mandate?.verifiedAt).toBeUndefined();
  });
});
