import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { axeViolations, launchBrowser, newPhonePage, startShopSite, type ShopSite } from "../helpers/browser.js";
import { freshEmail, latestCode } from "../helpers/on-session.js";
import { appSignInCode } from "../helpers/customer-app.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";
import { startZenginServer } from "../helpers/zengin-server.js";

// The hosted page tells the customer when the account is debited
// (docs/guide/hosted-page.md#when-the-account-is-debited): under BANK_CONNECTOR=zengin the bank
// step, the consent and the outcome state the debit date (振替日) and the amount; under the
// simulated connector the page reads exactly as before.

let zengin: TestServer;
let simulated: TestServer;
let browser: Browser;
let shop: ShopSite;

beforeAll(async () => {
  execFileSync(process.execPath, ["scripts/build.mjs", "--if-stale", "web"], { stdio: "inherit" });
  // Tuesday 2026-11-24 10:00 JST: a debit accepted now is made on Thursday the 26th.
  [zengin, simulated, browser, shop] = await Promise.all([
    startZenginServer({ consignorCode: "5234567890", simulatedBank: false }),
    startTestServer({ env: { WORKERS: "off" } }),
    launchBrowser(),
    startShopSite(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await shop?.close();
  await Promise.all([zengin?.stop(), simulated?.stop()]);
});

/** A new customer's ¥2,200 link, opened on a phone and taken to the bank step. */
async function atBankStep(
  server: TestServer,
  name: string,
): Promise<{ page: Page; pageUrl: string; email: string; close(): Promise<void> }> {
  const email = freshEmail(name);
  const response = await server.client(PaymentService).createOnSessionPayment({
    buyer: { email },
    charge: { price: 2200, description: "定期便 12月分" },
    redirect: { successUrl: `${shop.url}/success/${name}`, failureUrl: `${shop.url}/failure/${name}` },
  });
  const pageUrl = server.url + new URL(response.paymentLink!.url).pathname;
  const { context, page } = await newPhonePage(browser);
  await page.goto(pageUrl);
  await page.getByRole("button", { name: "確認コードを送信" }).click();
  const codeInput = page.getByLabel("確認コード（6桁）");
  await codeInput.waitFor();
  await codeInput.fill(await latestCode(server, email));
  await codeInput.press("Enter");
  await page.getByRole("heading", { name: "お支払いに使う口座の登録" }).waitFor();
  return { page, pageUrl, email, close: () => context.close() };
}

const text = async (page: Page, id: string) => (await page.locator(`#${id}`).textContent()) ?? "";

/** Links the demo account, approves on the consent screen, lands on the shop, and opens the link again. */
async function approveAndReturn(page: Page, pageUrl: string, button: string, name: string) {
  await page.getByRole("button", { name: "この口座を登録する" }).click();
  await page.getByRole("heading", { name: "お支払いの承認" }).waitFor();
  const consent = {
    intro: await text(page, "approve-intro"),
    timing: await text(page, "approve-timing"),
    terms: await text(page, "terms-text"),
  };
  await page.getByRole("button", { name: button }).click();
  await page.waitForURL((url) => url.origin === shop.url && url.pathname === `/success/${name}`);
  await page.goto(pageUrl);
  await page.locator("#done-heading").waitFor();
  return consent;
}

describe("the hosted page states when the account is debited", () => {
  it("under BANK_CONNECTOR=zengin: the date and amount on the bank step, the consent and the outcome", async () => {
    const { page, pageUrl, email, close } = await atBankStep(zengin, "zengin");
    try {
      const note = page.locator("#bank-debit-note");
      await note.waitFor();
      expect(await note.textContent()).toBe(
        "振替日の11月26日（木）に ¥2,200 を登録口座から引き落とします。承認の時点では引き落とされません。承認が遅れた場合は、確定した振替日をお支払いの完了画面とメールでお知らせします。",
      );
      expect(await axeViolations(page)).toEqual([]);
      // No bank page is promised: the account is registered with its first debit.
      expect(await text(page, "bank-verify-note")).toBe(
        "口座は、初回の引き落としの際に銀行に登録されます。このページで暗証番号やパスワードをお聞きすることはありません。",
      );
      const consent = await approveAndReturn(page, pageUrl, "規定に同意して ¥2,200 の引き落としを承認する", "zengin");
      expect(consent.intro).toBe(
        "Test Shop への ¥2,200 のお支払いを承認します。振替日の11月26日（木）に ¥2,200 を登録口座から引き落とします。",
      );
      expect(consent.intro).not.toContain("ボタンを押すと登録口座から引き落とされます");
      expect(consent.timing).toContain("振替日の11月26日（木）に");
      expect(consent.terms).toContain("口座振替規定（2026-11-28 版）");
      expect(consent.terms).not.toContain("承認時に引き落とされます");

      expect(await text(page, "done-heading")).toBe("お支払いを受け付けました");
      expect(await page.locator("#done-debit").isVisible()).toBe(true);
      expect(await text(page, "done-debit")).toBe(
        "振替日の11月26日（木）に ¥2,200 を登録口座から引き落とします。振替日の前日までに口座の残高をご用意ください。同じ内容をメールでもお知らせします。",
      );
      // The English switch says the same.
      await page.locator("#lang-toggle").click();
      expect(await text(page, "done-debit")).toContain(
        "¥2,200 will be debited from your registered account on the debit date, Thursday 26 November 2026.",
      );

      // The customer app lists it under 今後の引き落とし, in the same words, and dates it in the history.
      await page.goto(`${zengin.url}/app/`);
      await page.getByLabel("メールアドレス").fill(email);
      await page.getByLabel("メールアドレス").press("Enter");
      await page.getByLabel("確認コード（6桁）").waitFor();
      // The customer app's code goes to the operator's mailbox (docs/guide/sandbox.md#the-mailbox).
      await page.getByLabel("確認コード（6桁）").fill(await appSignInCode(zengin, email));
      await page.getByLabel("確認コード（6桁）").press("Enter");
      await page.getByRole("heading", { name: "今後の引き落とし" }).waitFor();
      expect(await page.locator(".upcoming-debits li").allTextContents()).toEqual([
        "Test Shop · 定期便 12月分振替日の11月26日（木）に ¥2,200 を登録口座から引き落とします",
      ]);
      expect(await page.locator(".transaction").first().textContent()).toContain("振替日11月26日（木）");
      expect(await axeViolations(page)).toEqual([]);
    } finally {
      await close();
    }
  });

  it("under the simulated connector: the wording of before, and no date", async () => {
    const { page, pageUrl, close } = await atBankStep(simulated, "simulated");
    try {
      expect(await page.locator("#bank-debit-note").isHidden()).toBe(true);
      expect(await text(page, "bank-verify-note")).toBe(
        "口座の確認は、お客さまの銀行のページで行います。このページで暗証番号やパスワードをお聞きすることはありません。",
      );
      const consent = await approveAndReturn(page, pageUrl, "規定に同意して ¥2,200 を支払う", "simulated");
      expect(consent.intro).toBe(
        "Test Shop への ¥2,200 のお支払いを承認します。ボタンを押すと登録口座から引き落とされます。",
      );
      expect(consent.timing).toBe("今回の金額を承認と同時に、今後はお店がご請求するたびにその金額を引き落とします。");
      expect(consent.terms).toContain("口座振替規定（2026-11-24 版）");
      expect(await text(page, "done-heading")).toBe("お支払いが完了しました");
      expect(await page.locator("#done-debit").isHidden()).toBe(true);
    } finally {
      await close();
    }
  });
});
