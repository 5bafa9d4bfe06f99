import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { ChargeStatus, ContractStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { setSupportContact } from "../../src/flows/merchants.js";
import {
  axeViolations,
  launchBrowser,
  newDesktopPage,
  newPhonePage,
  startShopSite,
  type ShopSite,
} from "../helpers/browser.js";
import { freshEmail, latestCode } from "../helpers/on-session.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// The customer's side of a direct-debit sign-up in a real browser, through the simulated bank's
// own site and back: keyboard only, on a phone and on a desktop, axe-core on every step, and a
// screenshot of each step under test-results/bank-redirect/ for a reviewer.

let server: TestServer;
let browser: Browser;
let shop: ShopSite;
const shots = "test-results/bank-redirect";

beforeAll(async () => {
  execFileSync(process.execPath, ["scripts/build.mjs", "--if-stale", "web"], { stdio: "inherit" });
  [server, browser, shop] = await Promise.all([startTestServer(), launchBrowser(), startShopSite()]);
  await setSupportContact(server.ctx, server.merchant.merchant_id, {
    email: "help@shop.example.jp",
    phone: "03-1234-5678",
    url: "https://shop.example.jp/help",
  });
  mkdirSync(shots, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await shop?.close();
  await server?.stop();
});

async function createLink(name: string, price?: number) {
  const email = freshEmail();
  const response = await server.client(PaymentService).createOnSessionPayment({
    buyer: { email },
    charge: price ? { price, description: "定期便 コーヒー豆" } : { description: "月額プラン" },
    redirect: { successUrl: `${shop.url}/success/${name}`, failureUrl: `${shop.url}/failure/${name}` },
  });
  return { response, email, pageUrl: server.url + new URL(response.paymentLink!.url).pathname };
}

/** Each step: no axe violation, and a screenshot named by flow and step. */
async function checkStep(page: Page, flow: string, step: string) {
  await page.screenshot({ path: `${shots}/${flow}-${step}.png`, fullPage: true });
  expect(await axeViolations(page), `${flow} ${step}`).toEqual([]);
}

/** The e-mailed code, typed with full-width digits (as a Japanese keyboard may), then Enter. */
async function passTwoFactor(page: Page, email: string, flow: string) {
  await page.getByRole("heading", { name: "メールアドレスの確認" }).waitFor();
  await checkStep(page, flow, "1-two-factor");
  await page.getByRole("button", { name: "確認コードを送信" }).press("Enter");
  const input = page.getByLabel("確認コード（6桁）");
  await input.waitFor();
  const code = await latestCode(server, email);
  const fullWidth = [...code].map((digit) => String.fromCharCode(digit.charCodeAt(0) + 0xfee0)).join("");
  await input.pressSequentially(fullWidth);
  expect(await input.inputValue()).toBe(fullWidth);
  await input.press("Enter");
}

/** Picks the bank by typing its name and choosing it from the matches, with the keyboard. */
async function chooseBank(page: Page, flow: string, query: string, bankCode: string) {
  await page.getByRole("heading", { name: "お支払いに使う口座の登録" }).waitFor();
  // No bank credential is asked for here.
  expect(await page.getByLabel("暗証番号").count()).toBe(0);
  expect(await page.locator("input[type=password]").count()).toBe(0);
  await page.getByLabel("金融機関コード").fill("");
  await page.getByLabel("金融機関を検索").pressSequentially(query);
  const match = page.locator("#bank-results button").first();
  await match.waitFor();
  await checkStep(page, flow, "2-bank-search");
  await match.press("Enter");
  expect(await page.getByLabel("金融機関コード").inputValue()).toBe(bankCode);
}

describe.each([
  ["phone", newPhonePage],
  ["desktop", newDesktopPage],
] as const)("a direct-debit sign-up through the bank's own page (%s)", (viewport, open) => {
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    ({ context, page } = await open(browser));
  });
  afterAll(async () => context?.close());

  it("CONTRACT_WITH_CHARGE: picks the bank, authorises at the bank, consents and pays", async () => {
    const flow = `contract-with-charge-${viewport}`;
    const { response, email, pageUrl } = await createLink(flow, 1200);
    await page.goto(pageUrl);
    await passTwoFactor(page, email, flow);
    await chooseBank(page, flow, "Sandbox Daily", "9901");
    await page.getByLabel("支店コード").fill("001");
    await page.getByLabel("口座番号（普通）").fill("7654567");
    const holder = page.getByLabel("口座名義（カタカナ）");
    await holder.fill("");
    await holder.pressSequentially("やまだ たろう");
    await expect.poll(() => page.locator("#holder-preview").textContent()).toBe("銀行での表記: ﾔﾏﾀﾞ ﾀﾛｳ");
    await checkStep(page, flow, "3-account");
    await page.getByRole("button", { name: "この口座を登録する" }).press("Enter");

    // The bank's own site: another origin, its own login page.
    await page.waitForURL((url) => url.pathname === "/authorize");
    expect(new URL(page.url()).origin).not.toBe(new URL(server.url).origin);
    expect(await page.locator("#bank-account").textContent()).toBe("Sandbox Daily Window Bank 本店 普通 ****567");
    await checkStep(page, flow, "4-bank-login");
    await page.getByLabel("暗証番号（4桁）").pressSequentially("１２３４");
    await page.getByLabel("ワンタイムパスワード（6桁）").pressSequentially("123456");
    await page.getByRole("button", { name: "認証して申し込む" }).press("Enter");

    // Back on the page: the consent screen names the account, the timing, the contact and the terms.
    await page.getByRole("heading", { name: "お支払いの承認" }).waitFor();
    expect(new URL(page.url()).search).toBe("");
    expect(await page.locator("#approve-account").textContent()).toBe("Sandbox Daily Window Bank 本店 普通 ****567");
    expect(await page.locator("#approve-contact").textContent()).toContain("help@shop.example.jp");
    expect(await page.locator("#terms-text").textContent()).toContain("口座振替規定");
    await checkStep(page, flow, "5-consent");
    await page.getByRole("button", { name: "規定に同意して ¥1,200 を支払う" }).press("Enter");
    await page.waitForURL((url) => url.origin === shop.url && url.pathname === `/success/${flow}`);

    const { charge } = await server.client(PaymentService).getCharge({ charge: response.charge!.chargeId });
    expect(charge?.chargeStatus).toBe(ChargeStatus.SUCCESS);
    const { contract } = await server.client(PaymentService).getContract({ contract: response.charge!.contractId });
    expect(contract?.status).toBe(ContractStatus.ACTIVATED);
    expect(contract?.mandate?.userAgent).toContain("Chrome");

    // A reload of the link shows the outcome with the reference to quote to the shop.
    await page.goto(pageUrl);
    await page.locator("#done-charge-id").waitFor();
    expect(await page.locator("#done-charge-id").textContent()).toBe(response.charge!.chargeId);
    expect(await page.locator("#done-time").textContent()).not.toBe("");
    await checkStep(page, flow, "6-done");
  });

  it("CONTRACT with ゆうちょ: cancelled at the bank, then authorised; the passbook numbers are converted", async () => {
    const flow = `contract-cancel-${viewport}`;
    const { response, email, pageUrl } = await createLink(flow);
    await page.goto(pageUrl);
    await passTwoFactor(page, email, flow);
    await chooseBank(page, flow, "ゆうちょ", "9900");
    await page.getByLabel("記号（5桁）").pressSequentially("10530");
    await page.getByLabel("番号（最大8桁）").pressSequentially("12345671");
    await expect
      .poll(() => page.locator("#yucho-result").textContent())
      .toBe("店番 058（〇五八店）・普通・口座番号 1234567");
    expect(await page.getByLabel("支店コード").inputValue()).toBe("058");
    await checkStep(page, flow, "3-yucho");
    await page.getByRole("button", { name: "この口座を登録する" }).press("Enter");
    // ゆうちょ has no online verification in the sandbox: registered with the first debit.
    await page.getByRole("heading", { name: "口座振替の登録" }).waitFor();
    expect(await page.locator("#approve-account").textContent()).toBe("ゆうちょ銀行 〇五八店 普通 ****567");
    await checkStep(page, flow, "4-consent");

    // A second link, at a bank that verifies online: cancelled on the bank's page.
    const second = await createLink(`${flow}-bank`);
    await page.goto(second.pageUrl);
    await passTwoFactor(page, second.email, `${flow}-bank`);
    await chooseBank(page, `${flow}-bank`, "9902", "9902");
    await page.getByLabel("支店コード").fill("001");
    await page.getByRole("button", { name: "この口座を登録する" }).press("Enter");
    await page.waitForURL((url) => url.pathname === "/authorize");
    await page.getByRole("button", { name: "申し込まずにお店に戻る" }).press("Enter");
    await page.getByRole("heading", { name: "お支払いに使う口座の登録" }).waitFor();
    await expect.poll(() => page.locator("#bank-error").textContent()).toContain("キャンセル");
    await checkStep(page, `${flow}-bank`, "5-cancelled");
    const { contract } = await server
      .client(PaymentService)
      .getContract({ contract: second.response.charge!.contractId });
    expect(contract?.status).not.toBe(ContractStatus.ACTIVATED);
    expect(response.charge?.contractId).not.toBe("");
  });
});
