import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import {
  BusinessDetailsSchema,
  BusinessKind,
  OnboardingState,
  type BusinessDetails,
} from "../../gen/payments/v1/dashboard_service_pb.js";
import { merchantTermsVersion } from "../../src/domain/onboarding-checklist.js";
import {
  approveMerchant,
  reinstateMerchant,
  reviewQueue,
  sendBackMerchant,
  suspendMerchant,
} from "../../src/flows/merchant-review.js";
import { setWebhookUrl } from "../../src/flows/merchants.js";
import { addContract } from "../../src/flows/zengin-contracts.js";
import { enrolTotp, nextTotpCode, refusal, signedInUser, type DashboardBrowser } from "../helpers/dashboard.js";
import { startTestServer, testDialect, type TestServer } from "../helpers/test-server.js";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";
import type { CreatedMerchant } from "../../src/flows/merchants.js";

const business = (overrides: Partial<BusinessDetails> = {}) =>
  create(BusinessDetailsSchema, {
    kind: BusinessKind.CORPORATION,
    corporateNumber: "4011001098993",
    tradeName: "株式会社珈琲豆",
    tradeNameKana: "カブシキガイシャコーヒーマメ",
    address: "東京都渋谷区渋谷1-2-3",
    representative: "山田 太郎",
    phone: "03-1234-5678",
    invoiceRegistrationNumber: "",
    ...overrides,
  });

/** A merchant that signed up (onboarding incomplete) and its owner, signed in with TOTP. */
async function signedUpMerchant(server: TestServer, name: string) {
  const merchant = await server.newMerchant(name);
  await server.ctx.tx.db
    .updateTable("merchants")
    .set({ onboarding_state: "incomplete" })
    .where("id", "=", merchant.merchant_id)
    .execute();
  const owner = await signedInUser(server, { merchantId: merchant.merchant_id });
  const secret = await enrolTotp(server, owner);
  return { merchant, owner, secret };
}

async function checklistOf(owner: DashboardBrowser) {
  return (await owner.client.getOnboarding({})).checklist!;
}

describe(`the going-live checklist and its review, ${testDialect}`, () => {
  let server: TestServer;
  let merchant: CreatedMerchant;
  let owner: DashboardBrowser & { email: string };
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    server = await startTestServer({ env: { WORKERS: "off" } });
    ({ merchant, owner } = await signedUpMerchant(server, "Checklist Shop"));
    receiver = await startWebhookReceiver(merchant.webhook_secret, { status: 500 });
  });
  afterAll(async () => {
    await receiver?.close();
    await server?.stop();
  });

  it("starts with every item to do", async () => {
    expect(await checklistOf(owner)).toMatchObject({
      state: OnboardingState.INCOMPLETE,
      missing: ["business", "zengin_contract", "webhook", "terms"],
      currentTermsVersion: merchantTermsVersion,
    });
  });

  it("business details: a 法人番号 whose check digit is wrong is refused and nothing is saved; a right one is saved", async () => {
    const wrong = await refusal(
      owner.client.saveBusinessDetails({ business: business({ corporateNumber: "5011001098993" }) }),
    );
    expect(wrong).toMatchObject({ code: Code.InvalidArgument, reason: "CORPORATE_NUMBER_INVALID" });
    expect(wrong.message).toMatch(/check digit/);
    const sole = await refusal(
      owner.client.saveBusinessDetails({ business: business({ kind: BusinessKind.SOLE_PROPRIETOR }) }),
    );
    expect(sole.reason).toBe("CORPORATE_NUMBER_INVALID");
    const notKana = await refusal(
      owner.client.saveBusinessDetails({ business: business({ tradeNameKana: "coffee" }) }),
    );
    expect(notKana.code).toBe(Code.InvalidArgument);
    expect((await checklistOf(owner)).missing).toContain("business");

    const saved = await owner.client.saveBusinessDetails({ business: business() });
    expect(saved.checklist?.business?.corporateNumber).toBe("4011001098993");
    expect(saved.checklist?.missing).not.toContain("business");
    const soleSaved = await owner.client.saveBusinessDetails({
      business: business({ kind: BusinessKind.SOLE_PROPRIETOR, corporateNumber: "", tradeName: "珈琲豆の店" }),
    });
    expect(soleSaved.checklist?.business?.kind).toBe(BusinessKind.SOLE_PROPRIETOR);
  });

  it("business details: the インボイス 登録番号 is T and a valid 13-digit number, a corporation's its 法人番号 (issue #31)", async () => {
    const wrongDigit = await refusal(
      owner.client.saveBusinessDetails({ business: business({ invoiceRegistrationNumber: "T5011001098993" }) }),
    );
    expect(wrongDigit).toMatchObject({ code: Code.InvalidArgument, reason: "INVOICE_REGISTRATION_NUMBER_INVALID" });
    // 8000012010005 has a good check digit but is not this corporation's 法人番号.
    const notItsOwn = await refusal(
      owner.client.saveBusinessDetails({ business: business({ invoiceRegistrationNumber: "T8000012010005" }) }),
    );
    expect(notItsOwn.reason).toBe("INVOICE_REGISTRATION_NUMBER_INVALID");
    expect(notItsOwn.message).toMatch(/法人番号/);
    const noT = await refusal(
      owner.client.saveBusinessDetails({ business: business({ invoiceRegistrationNumber: "4011001098993" }) }),
    );
    expect(noT.code).toBe(Code.InvalidArgument);
    const saved = await owner.client.saveBusinessDetails({
      business: business({ invoiceRegistrationNumber: "T4011001098993" }),
    });
    expect(saved.checklist?.business?.invoiceRegistrationNumber).toBe("T4011001098993");
    const sole = await owner.client.saveBusinessDetails({
      business: business({
        kind: BusinessKind.SOLE_PROPRIETOR,
        corporateNumber: "",
        invoiceRegistrationNumber: "T8000012010005",
      }),
    });
    expect(sole.checklist?.business?.invoiceRegistrationNumber).toBe("T8000012010005");
  });

  it("webhook: refused without a URL; not done while the endpoint answers 500 or is down; done once it answers 2xx", async () => {
    expect((await refusal(owner.client.sendOnboardingTestEvent({}))).code).toBe(Code.FailedPrecondition);
    await setWebhookUrl(server.ctx, merchant.merchant_id, receiver.url);
    await owner.client.sendOnboardingTestEvent({});
    await server.webhooks.drain();
    expect(receiver.requests.length).toBeGreaterThan(0);
    expect((await checklistOf(owner)).webhookAnswered).toBe(false);

    await setWebhookUrl(server.ctx, merchant.merchant_id, "http://127.0.0.1:9/closed");
    await owner.client.sendOnboardingTestEvent({});
    await server.webhooks.drain();
    expect((await checklistOf(owner)).webhookAnswered).toBe(false);

    receiver.behave({ status: 204 });
    await setWebhookUrl(server.ctx, merchant.merchant_id, receiver.url);
    const { eventId } = await owner.client.sendOnboardingTestEvent({});
    await server.webhooks.drain();
    expect(receiver.delivered.map((w) => w.id)).toContain(eventId);
    expect(receiver.rejected).toEqual([]);
    expect((await checklistOf(owner)).webhookAnswered).toBe(true);
  });

  it("terms: an older version is refused; the current one is recorded with its time", async () => {
    expect((await refusal(owner.client.acceptMerchantTerms({ version: "2020-01-01" }))).reason).toBe(
      "TERMS_VERSION_OUTDATED",
    );
    const accepted = await owner.client.acceptMerchantTerms({ version: merchantTermsVersion });
    expect(accepted.checklist).toMatchObject({ termsVersion: merchantTermsVersion });
    expect(accepted.checklist?.termsAcceptedAt).toBeDefined();
  });

  it("submit: refused while the Zengin contract is missing; then in review, and no longer editable", async () => {
    const early = await refusal(owner.client.submitOnboarding({}));
    expect(early).toMatchObject({ code: Code.FailedPrecondition, reason: "ONBOARDING_INCOMPLETE" });
    expect(early.message).toMatch(/zengin_contract/);
    await addContract(server.ctx, merchant.merchant_id, {
      name: "ｺｰﾋｰﾏﾒ",
      branchCode: "001",
      accountType: "1",
      accountNumber: "1234567",
      scope: "agent",
      code: "7000000001",
      bankCode: "0001",
    });
    const submitted = await owner.client.submitOnboarding({});
    expect(submitted.checklist).toMatchObject({ state: OnboardingState.IN_REVIEW, missing: [] });
    expect((await refusal(owner.client.saveBusinessDetails({ business: business() }))).reason).toBe(
      "ONBOARDING_NOT_EDITABLE",
    );
  });

  it("the operator sends it back with a reason (e-mailed to the owner, shown on the dashboard), then approves it; each decision audited", async () => {
    expect((await reviewQueue(server.ctx)).map((r) => r.merchant_id)).toEqual([merchant.merchant_id]);
    await sendBackMerchant(server.ctx, merchant.merchant_id, "商号の読みが登記と違います");
    const sentBack = await checklistOf(owner);
    expect(sentBack).toMatchObject({ state: OnboardingState.INCOMPLETE, sentBackReason: "商号の読みが登記と違います" });
    const mail = await owner.client.listSandboxMailbox({ email: owner.email });
    expect(mail.messages.some((m) => m.body.includes("商号の読みが登記と違います"))).toBe(true);
    expect((await reviewQueue(server.ctx)).length).toBe(0);

    await owner.client.submitOnboarding({});
    await approveMerchant(server.ctx, merchant.merchant_id);
    expect(await checklistOf(owner)).toMatchObject({ state: OnboardingState.COMPLETE, sentBackReason: "" });
    const actions = (await owner.client.listAuditLog({})).entries.map((e) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining(["onboarding.submit", "onboarding.send_back", "onboarding.approve", "onboarding.update"]),
    );
    await expect(approveMerchant(server.ctx, merchant.merchant_id)).rejects.toThrow(/complete, not in_review/);
  });

  it("suspends and reinstates, a reason required to suspend", async () => {
    await expect(suspendMerchant(server.ctx, merchant.merchant_id, " ")).rejects.toThrow(/--reason is required/);
    expect((await suspendMerchant(server.ctx, merchant.merchant_id, "chargebacks")).state).toBe("suspended");
    expect((await reinstateMerchant(server.ctx, merchant.merchant_id)).state).toBe("complete");
  });
});

describe(`live keys wait for the approval, ${testDialect}`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { MODE: "production", WORKERS: "off" } });
  });
  afterAll(async () => server?.stop());

  it("CreateApiKey is refused (MERCHANT_NOT_LIVE) until the merchant is approved, then makes an sk_live_ key", async () => {
    const { merchant, owner, secret } = await signedUpMerchant(server, "Live Shop");
    const refused = await refusal(owner.client.createApiKey({}));
    expect(refused).toMatchObject({ code: Code.FailedPrecondition, reason: "MERCHANT_NOT_LIVE" });
    await server.ctx.tx.db
      .updateTable("merchants")
      .set({ onboarding_state: "in_review" })
      .where("id", "=", merchant.merchant_id)
      .execute();
    // The operator reads the checklist again at approval: an unfinished one is not approved.
    await expect(approveMerchant(server.ctx, merchant.merchant_id)).rejects.toThrow(/not finished/);
    expect((await refusal(owner.client.createApiKey({}))).reason).toBe("MERCHANT_NOT_LIVE");
    await server.ctx.tx.db
      .updateTable("merchants")
      .set({ onboarding_state: "complete" })
      .where("id", "=", merchant.merchant_id)
      .execute();
    await owner.client.verifyStepUp({ code: nextTotpCode(server, secret) });
    expect((await owner.client.createApiKey({})).secret).toMatch(/^sk_live_/);
  });
});
