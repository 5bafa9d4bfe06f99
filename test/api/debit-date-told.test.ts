import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChargeStatus, DebitTiming, PaymentErrorCode } from "../../gen/payments/v1/enums_pb.js";
import { HostedPageService, type PaymentSession } from "../../gen/payments/v1/hosted_page_service_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { mandateTermsAtApproval, mandateTermsOnDebitDate } from "../../src/domain/mandate-terms.js";
import { signInCustomer } from "../helpers/customer-app.js";
import { createPayment, freshEmail, throughBankStep } from "../helpers/on-session.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";
import { startZenginServer } from "../helpers/zengin-server.js";
import { addContract } from "../../src/flows/zengin-contracts.js";
import { latestCode, tokenOf } from "../helpers/on-session.js";

/**
 * The customer is told when the account is debited (docs/guide/hosted-page.md#when-the-account-is-debited).
 * Under BANK_CONNECTOR=zengin the hosted page's session and approval carry the debit date
 * (振替日), the mandate records the terms version that says so (2026-11-28), the customer is
 * e-mailed the date and the amount, and the customer app lists the upcoming debit. Under the
 * simulated connector nothing of it changes: debited at approval, the 2026-11-24 terms, no notice.
 */
let zengin: TestServer;
let simulated: TestServer;

beforeAll(async () => {
  // Tuesday 2026-11-24 10:00 JST: a debit accepted now is made on Thursday the 26th.
  [zengin, simulated] = await Promise.all([
    startZenginServer({ consignorCode: "4234567890", simulatedBank: false }),
    startTestServer({ env: { WORKERS: "off" } }),
  ]);
});
afterAll(async () => {
  await Promise.all([zengin?.stop(), simulated?.stop()]);
});

async function sessionOf(server: TestServer, token: string): Promise<PaymentSession> {
  const initiated = await server.client(HostedPageService).initiatePayment({ token });
  if (initiated.result?.outcome.case !== "session") throw new Error("no session");
  return initiated.result.outcome.value;
}

/** A new customer's ¥1,500 link, taken to the consent screen (code verified, bank 0001 linked). */
async function atConsent(server: TestServer) {
  const email = freshEmail("told");
  const created = await createPayment(server, { buyer: { email }, charge: { price: 1500, description: "定期便" } });
  const { token, session: before } = await throughBankStep(server, created.paymentLink!.url, { email });
  return { email, token, before, chargeId: created.charge!.chargeId, contractId: created.charge!.contractId };
}

async function approve(server: TestServer, token: string, termsVersion: string) {
  const answer = await server.client(HostedPageService).approvePayment({ token, termsVersion });
  return answer.result!.outcome;
}

const noticesTo = async (server: TestServer, email: string) =>
  (await server.client(SandboxService).listMailbox({ email })).messages.filter((m) =>
    m.subject.includes("口座振替のお知らせ"),
  );

describe("BANK_CONNECTOR=zengin: the customer is told the debit date and the amount", () => {
  let paid: Awaited<ReturnType<typeof atConsent>>;

  it("the session states the debit timing, the date a charge approved now gets, and the 2026-11-28 terms", async () => {
    paid = await atConsent(zengin);
    // Before an account is chosen: the date the merchant's one contract gives.
    expect(paid.before.debitTiming).toBe(DebitTiming.ON_DEBIT_DATE);
    expect(paid.before.debitDate).toBe("2026-11-26");
    const session = await sessionOf(zengin, paid.token);
    expect(session.debitTiming).toBe(DebitTiming.ON_DEBIT_DATE);
    expect(session.debitDate).toBe("2026-11-26");
    expect(session.terms?.version).toBe("2026-11-28");
    expect(session.terms?.text).toContain("振替日");
    expect(session.terms?.text).not.toContain("承認時に引き落とされます");
  });

  it("refuses the at-approval terms (2026-11-24), which say the debit is made at approval", async () => {
    const outcome = await approve(zengin, paid.token, "2026-11-24");
    expect(outcome.case).toBe("error");
    if (outcome.case !== "error") return;
    expect(outcome.value.errorCode).toBe(PaymentErrorCode.BAD_REQUEST);
    expect(outcome.value.errorMessage).toContain("now version 2026-11-28");
  });

  it("answers the approval with the charge's debit date, and records the 2026-11-28 terms on the mandate", async () => {
    const outcome = await approve(zengin, paid.token, "2026-11-28");
    expect(outcome.case).toBe("success");
    if (outcome.case !== "success") return;
    expect(outcome.value.chargeStatus).toBe(ChargeStatus.PENDING);
    expect(outcome.value.debitDate).toBe("2026-11-26");
    const payments = zengin.client(PaymentService);
    expect((await payments.getCharge({ charge: paid.chargeId })).charge?.debitDate).toBe("2026-11-26");
    const { contract } = await payments.getContract({ contract: paid.contractId });
    expect(contract?.mandate?.termsVersion).toBe(mandateTermsOnDebitDate.version);
    // A reload of the outcome says the same date.
    const reloaded = await sessionOf(zengin, paid.token);
    expect(reloaded.completed).toBe(true);
    expect(reloaded.debitDate).toBe("2026-11-26");
  });

  it("e-mails the customer the debit date and the amount", async () => {
    expect(await noticesTo(zengin, paid.email)).toEqual([]);
    await zengin.jobs.drain();
    const notices = await noticesTo(zengin, paid.email);
    expect(notices).toHaveLength(1);
    expect(notices[0].body).toContain("振替日の11月26日（木）に ¥1,500 を登録口座から引き落とします。");
    expect(notices[0].body).toContain(
      "¥1,500 will be debited from your registered account on the debit date, Thursday 26 November 2026.",
    );
    expect(notices[0].body).toContain(paid.chargeId);
  });

  it("lists the debit as upcoming in the customer app, with its date, until a full refund cancels it", async () => {
    const app = await signInCustomer(zengin, paid.email);
    const { debits } = await app.client.listUpcomingDebits({});
    expect(
      debits.map(({ chargeId, amount, debitDate, noticeJa }) => ({ chargeId, amount, debitDate, noticeJa })),
    ).toEqual([
      {
        chargeId: paid.chargeId,
        amount: 1500,
        debitDate: "2026-11-26",
        noticeJa: "振替日の11月26日（木）に ¥1,500 を登録口座から引き落とします",
      },
    ]);
    const { transactions } = await app.client.listCustomerTransactions({});
    expect(transactions.find((t) => t.chargeId === paid.chargeId)?.debitDate).toBe("2026-11-26");
    // The plain HTTP path answers the same.
    const plain = await fetch(`${zengin.url}/app/v1/upcoming-debits`, {
      headers: {
        cookie: [...app.cookies].map(([name, value]) => `${name}=${value}`).join("; "),
        "x-csrf-token": app.cookies.get("furikomi_app_csrf") ?? "",
      },
    });
    expect(plain.status).toBe(200);
    expect((await plain.json()).debits).toMatchObject([
      { chargeId: paid.chargeId, amount: 1500, debitDate: "2026-11-26", merchantName: "Test Shop" },
    ]);

    await zengin.client(PaymentService).refund({ chargeId: paid.chargeId });
    expect((await app.client.listUpcomingDebits({})).debits).toEqual([]);
  });
});

describe("BANK_CONNECTOR=zengin: the date depends on the contract covering the account's bank", () => {
  it("names no date while the merchant's contracts disagree, then the covering contract's once the account is chosen", async () => {
    const merchant = await zengin.newMerchant("Two Contracts Shop");
    const contract = { name: "ｹｲﾔｸ ｼﾖｳｼﾞ", branchCode: "001", accountType: "1", accountNumber: "1234567" };
    await addContract(zengin.ctx, merchant.merchant_id, {
      ...contract,
      scope: "agent",
      code: "6000000001",
      bankCode: "0001",
    });
    // Its own bank's contract debits on the 27th of each month.
    await addContract(zengin.ctx, merchant.merchant_id, {
      ...contract,
      scope: "bank",
      code: "6000000002",
      bankCode: "0184",
      debitDay: "27",
    });
    const email = freshEmail("monthly");
    const created = await createPayment(zengin, { buyer: { email }, charge: { price: 3300 } }, merchant.api_key);
    const token = tokenOf(created.paymentLink!.url);
    const before = await sessionOf(zengin, token);
    expect(before.debitTiming).toBe(DebitTiming.ON_DEBIT_DATE);
    expect(before.debitDate).toBeUndefined();
    const page = zengin.client(HostedPageService);
    await page.sendTwoFactorCode({ token });
    await page.verifyTwoFactorCode({ token, code: await latestCode(zengin, email, merchant.api_key) });
    await page.linkBankAccount({
      token,
      bankCode: "0184",
      branchCode: "100",
      accountNumber: "7654321",
      accountHolder: "ヤマダ タロウ",
    });
    expect((await sessionOf(zengin, token)).debitDate).toBe("2026-11-27");
  });
});

describe("the simulated connector: debited at approval, worded as before", () => {
  it("the session says at approval, names no date, and gives the 2026-11-24 terms", async () => {
    const { before, token } = await atConsent(simulated);
    expect(before.debitTiming).toBe(DebitTiming.AT_APPROVAL);
    expect(before.debitDate).toBeUndefined();
    const session = await sessionOf(simulated, token);
    expect(session.debitDate).toBeUndefined();
    expect(session.terms).toMatchObject({ version: "2026-11-24", text: mandateTermsAtApproval.text });
    expect(session.terms?.text).toContain("今回のお支払いがある場合は、承認時に引き落とされます。");
  });

  it("debits at approval, records the 2026-11-24 terms, sends no notice and lists nothing upcoming", async () => {
    const { token, email, contractId } = await atConsent(simulated);
    const outcome = await approve(simulated, token, "");
    expect(outcome.case).toBe("success");
    if (outcome.case !== "success") return;
    expect(outcome.value.chargeStatus).toBe(ChargeStatus.SUCCESS);
    expect(outcome.value.debitDate).toBeUndefined();
    const { contract } = await simulated.client(PaymentService).getContract({ contract: contractId });
    expect(contract?.mandate?.termsVersion).toBe("2026-11-24");
    await simulated.jobs.drain();
    expect(await noticesTo(simulated, email)).toEqual([]);
    const app = await signInCustomer(simulated, email);
    expect((await app.client.listUpcomingDebits({})).debits).toEqual([]);
    const { transactions } = await app.client.listCustomerTransactions({});
    expect(transactions).toHaveLength(1);
    expect(transactions[0].debitDate).toBeUndefined();
  });
});
