import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { BankAccountType, ChargeStatus, ContractStatus, MandateVerification } from "../../gen/payments/v1/enums_pb.js";
import { HostedPageService } from "../../gen/payments/v1/hosted_page_service_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { atBank, backLocation, bankPort, returnFromBank } from "../helpers/bank-site.js";
import { createPayment, freshEmail, latestCode, tokenOf } from "../helpers/on-session.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// Choosing the account (the Zengin master, ゆうちょ) and verifying it at the bank: the customer is
// sent to the simulated bank's own site, authenticates there, and comes back with a code the
// service confirms server to server. Nothing in the return is trusted alone.

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { WORKERS: "off" } });
});
afterAll(async () => server?.stop());

const page = () => server.client(HostedPageService);
const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => ConnectError.from(error),
  );

/** A new customer's link (CONTRACT_WITH_CHARGE, ¥1,200), past the two-factor step. */
async function verifiedLink() {
  const email = freshEmail();
  const created = await createPayment(server, { buyer: { email } });
  const token = tokenOf(created.paymentLink!.url);
  await page().sendTwoFactorCode({ token });
  expect((await page().verifyTwoFactorCode({ token, code: await latestCode(server, email) })).verified).toBe(true);
  return { token, chargeId: created.charge!.chargeId, contractId: created.charge!.contractId };
}

const chooseSandboxBank = (token: string, accountNumber = "1234567") =>
  page().linkBankAccount({ token, bankCode: "9901", branchCode: "001", accountNumber, accountHolder: "ヤマダ タロウ" });

const bankLinked = async (token: string) => {
  const answer = await page().initiatePayment({ token });
  if (answer.result?.outcome.case !== "session") throw new Error("no session");
  return answer.result.outcome.value.bankLinked;
};

describe("the bank and branch picker", () => {
  it("finds banks by kanji, hiragana, katakana, romaji or code, with names in full", async () => {
    const { token } = await verifiedLink();
    for (const query of ["みずほ", "ミズホ", "mizuho", "0001"])
      expect((await page().searchBanks({ token, query })).banks[0]).toEqual(
        // kana: the reading for people, in hiragana (issue #31, finding 12).
        expect.objectContaining({ code: "0001", name: "みずほ銀行", kana: "みずほ" }),
      );
    expect((await page().searchBanks({ token, query: "三菱" })).banks.map((bank) => bank.code)).toContain("0005");
    expect((await page().searchBanks({ token, query: "ゆうちょ" })).banks[0]?.name).toBe("ゆうちょ銀行");
    // The sandbox's simulated banks are listed too.
    expect((await page().searchBanks({ token, query: "9901" })).banks[0]?.code).toBe("9901");
    expect((await page().searchBanks({ token, query: "み", limit: 3 })).banks).toHaveLength(3);

    const branches = await page().searchBranches({ token, bankCode: "0001", query: "しぶや" });
    expect(branches.bank?.name).toBe("みずほ銀行");
    expect(branches.branches[0]).toEqual(expect.objectContaining({ code: "210", name: "渋谷支店", kana: "しぶや" }));
  });

  it("answers only a real payment link, and an unknown bank is not found", async () => {
    const { token } = await verifiedLink();
    expect((await caught(page().searchBanks({ token: "x".repeat(32), query: "みずほ" })))?.code).toBe(Code.NotFound);
    expect((await caught(page().searchBranches({ token, bankCode: "0002", query: "" })))?.code).toBe(Code.NotFound);
  });

  it("refuses a branch the bank does not have, and shows the chosen account back masked", async () => {
    const { token } = await verifiedLink();
    const unknownBranch = await caught(
      page().linkBankAccount({
        token,
        bankCode: "0001",
        branchCode: "999",
        accountNumber: "1234567",
        accountHolder: "ﾔﾏﾀﾞ",
      }),
    );
    expect(unknownBranch?.code).toBe(Code.InvalidArgument);
    expect(unknownBranch?.rawMessage).toContain("branch_code");
    const chosen = await page().linkBankAccount({
      token,
      bankCode: "0001",
      branchCode: "210",
      accountType: BankAccountType.CURRENT,
      accountNumber: "1234567",
      accountHolder: "ヤマダ タロウ",
    });
    expect(chosen.account).toMatchObject({
      bankName: "みずほ銀行",
      branchName: "渋谷支店",
      accountType: BankAccountType.CURRENT,
      maskedAccountNumber: "****567",
      display: "みずほ銀行 渋谷支店 当座 ****567",
    });
    expect(JSON.stringify(chosen)).not.toContain("1234567");
    // At rest the details are sealed; only the masked summary is in clear.
    const stored = await server.ctx.tx.db
      .selectFrom("account_verifications")
      .select(["account_sealed", "summary_json"])
      .orderBy("created_at", "desc")
      .executeTakeFirstOrThrow();
    expect(stored.account_sealed).toMatch(/^sealed:v1:/);
    expect(`${stored.account_sealed}${stored.summary_json}`).not.toContain("1234567");
  });

  it("takes a ゆうちょ account as the 店番 and 口座番号 its 記号・番号 convert to", async () => {
    const { token } = await verifiedLink();
    const chosen = await page().linkBankAccount({
      token,
      bankCode: "9900",
      branchCode: "058",
      accountNumber: "1234567",
      accountHolder: "ヤマダ タロウ",
    });
    expect(chosen.account?.display).toBe("ゆうちょ銀行 〇五八店 普通 ****567");
  });
});

describe("verification at the bank's own page", () => {
  it("links the account only once the bank confirms the code; the approval then pays", async () => {
    const { token, chargeId, contractId } = await verifiedLink();
    const chosen = await chooseSandboxBank(token);
    expect(chosen).toMatchObject({ linked: false, verification: MandateVerification.BANK_REDIRECT });
    expect(chosen.account?.display).toBe("Sandbox Daily Window Bank 本店 普通 ****567");
    // Not linked yet: the approval is refused.
    expect(await bankLinked(token)).toBe(false);
    const early = await page().approvePayment({ token });
    expect(early.result?.outcome.case).toBe("error");

    // The bank's own login page shows the merchant and the masked account, and its test values.
    const login = await fetch(chosen.bankRedirectUrl.replace(/\/\/[^:/]+:/, "//127.0.0.1:"));
    const html = await login.text();
    expect(login.status).toBe(200);
    expect(html).toContain("Test Shop");
    expect(html).toContain("****567");
    expect(html).not.toContain("1234567");

    const back = backLocation(await atBank(server, chosen.bankRedirectUrl));
    expect(back.pathname).toBe(`/pay/${token}/bank-return`);
    expect(await returnFromBank(server, back)).toBe("verified");
    expect(await bankLinked(token)).toBe(true);
    const approved = await page().approvePayment({ token });
    expect(approved.result?.outcome.case).toBe("success");
    const { charge } = await server.client(PaymentService).getCharge({ charge: chargeId });
    expect(charge?.chargeStatus).toBe(ChargeStatus.SUCCESS);
    const { contract } = await server.client(PaymentService).getContract({ contract: contractId });
    expect(contract?.status).toBe(ContractStatus.ACTIVATED);
  });

  it("cancel at the bank: a clear outcome, nothing linked", async () => {
    const { token } = await verifiedLink();
    const chosen = await chooseSandboxBank(token);
    const back = backLocation(await atBank(server, chosen.bankRedirectUrl, { action: "cancel" }));
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(await returnFromBank(server, back)).toBe("cancelled");
    expect(await bankLinked(token)).toBe(false);
  });

  it("coming back after 10 minutes: expired, nothing linked", async () => {
    const { token } = await verifiedLink();
    const chosen = await chooseSandboxBank(token);
    const back = backLocation(await atBank(server, chosen.bankRedirectUrl));
    server.clock.advance(10 * 60_000 + 1);
    expect(await returnFromBank(server, back)).toBe("expired");
    expect(await bankLinked(token)).toBe(false);
  });

  it("the bank's page of a request already answered leads back to the payment page, which settles nothing more (issue #31)", async () => {
    const { token } = await verifiedLink();
    const chosen = await chooseSandboxBank(token);
    const back = backLocation(await atBank(server, chosen.bankRedirectUrl));
    expect(await returnFromBank(server, back)).toBe("verified");
    // The session names the holder as the bank verified it (the consent shows it), no contract yet.
    const answer = await page().initiatePayment({ token });
    if (answer.result?.outcome.case !== "session") throw new Error("no session");
    expect(answer.result.outcome.value.accountHolder).toBe("ﾔﾏﾀﾞ ﾀﾛｳ");
    expect(answer.result.outcome.value.contractId).toBe("");
    // The browser's Back from the page that followed: the bank's page of that request again.
    const again = new URL(chosen.bankRedirectUrl);
    const bankPage = await fetch(`http://127.0.0.1:${bankPort(server)}${again.pathname}${again.search}`);
    expect(bankPage.status).toBe(200);
    const html = await bankPage.text();
    expect(html).toContain("お申し込みの手続きは終わっています");
    expect(html).not.toContain('name="pin"');
    const way = /id="bank-back" href="([^"]+)"/.exec(html)?.[1].replaceAll("&#38;", "&");
    expect(way).toBe(`${back.origin}${back.pathname}`);
    // That way back answers the page itself: no outcome to show, the link still linked.
    const response = await fetch(`${server.url}${new URL(way!).pathname}`, { redirect: "manual" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`/pay/${token}`);
    expect(await bankLinked(token)).toBe(true);
    // A request the bank never had: still the bare refusal, with no way anywhere.
    const unknown = await fetch(`http://127.0.0.1:${bankPort(server)}/authorize?request=bvr-none&state=x`);
    expect(unknown.status).toBe(400);
  });

  it("a wrong state, or another link's state, links nothing", async () => {
    const { token } = await verifiedLink();
    const other = await verifiedLink();
    const chosen = await chooseSandboxBank(token);
    const otherChosen = await chooseSandboxBank(other.token);
    const back = backLocation(await atBank(server, chosen.bankRedirectUrl));
    const forged = new URL(back);
    forged.searchParams.set("state", "forged");
    expect(await returnFromBank(server, forged)).toBe("state_mismatch");
    // The code and state of this link presented on the other link's return.
    const crossed = new URL(back);
    crossed.pathname = `/pay/${other.token}/bank-return`;
    expect(await returnFromBank(server, crossed)).toBe("state_mismatch");
    expect(await bankLinked(token)).toBe(false);
    expect(await bankLinked(other.token)).toBe(false);
    // The genuine return still works; the other link is untouched.
    expect(await returnFromBank(server, back)).toBe("verified");
    expect(otherChosen.bankRedirectUrl).not.toBe(chosen.bankRedirectUrl);
  });

  it("a query string without the bank's confirmation, or a replayed code, links nothing more", async () => {
    const { token } = await verifiedLink();
    const chosen = await chooseSandboxBank(token);
    const state = new URL(chosen.bankRedirectUrl).searchParams.get("state")!;
    // A made-up code with the right state: the bank does not confirm it.
    const madeUp = new URL(`${server.url}/pay/${token}/bank-return?state=${state}&code=madeup`);
    expect(await returnFromBank(server, madeUp)).toBe("code_rejected");
    expect(await bankLinked(token)).toBe(false);

    const again = await chooseSandboxBank(token);
    const back = backLocation(await atBank(server, again.bankRedirectUrl));
    expect(await returnFromBank(server, back)).toBe("verified");
    expect(await returnFromBank(server, back)).toBe("code_rejected");
    // Server to server, the bank itself refuses the code a second time.
    const redeemed = await server.ctx.verifiers.bankRedirect!.confirm(
      new URL(again.bankRedirectUrl).searchParams.get("request")!,
      back.searchParams.get("code")!,
    );
    expect(redeemed.ok).toBe(false);
  });

  it("SandboxService.CompletePayment drives the same round trip without a browser", async () => {
    const { token } = await verifiedLink();
    const { SandboxService } = await import("../../gen/payments/v1/sandbox_service_pb.js");
    const url = `${server.ctx.config.publicBaseUrl}/pay/${token}`;
    const completed = await server.client(SandboxService).completePayment({ paymentLinkUrl: url, bankCode: "9902" });
    expect(completed.chargeStatus).toBe(ChargeStatus.SUCCESS);
  });
});
