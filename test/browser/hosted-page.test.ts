import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { ChargeStatus, ContractStatus, ErrorType, PaymentWorkflow } from "../../gen/payments/v1/enums_pb.js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  PaymentService,
  type BuyerSchema,
  type OnSessionChargeSchema,
} from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { launchBrowser, newPhonePage, startShopSite, type ShopSite } from "../helpers/browser.js";
import { findPendingBankAccount } from "../../src/storage/bank-accounts.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { freshEmail, latestCode } from "../helpers/on-session.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// The hosted payment page in a real browser (Debian's chromium), against the real server: the
// customer's side of each workflow, from the payment link to the merchant's success_url.

let server: TestServer;
let browser: Browser;
let shop: ShopSite;

beforeAll(async () => {
  execFileSync(process.execPath, ["scripts/build.mjs", "--if-stale", "web"], { stdio: "inherit" });
  [server, browser, shop] = await Promise.all([startTestServer(), launchBrowser(), startShopSite()]);
});
afterAll(async () => {
  await browser?.close();
  await shop?.close();
  await server?.stop();
});

/** Creates an on-session payment; the page URL is the link's path on the test server's address. */
async function createLink(
  request: { buyer: MessageInitShape<typeof BuyerSchema>; charge?: MessageInitShape<typeof OnSessionChargeSchema> },
  name: string,
) {
  const response = await server.client(PaymentService).createOnSessionPayment({
    ...request,
    redirect: {
      successUrl: `${shop.url}/success/${name}?order=${name}`,
      failureUrl: `${shop.url}/failure/${name}?order=${name}`,
    },
  });
  const link = new URL(response.paymentLink!.url);
  expect(link.pathname).toMatch(/^\/pay\/[^/]+$/);
  return { response, pageUrl: server.url + link.pathname };
}

/** The code the customer finds in the sandbox mailbox. */
async function codeFromMailbox(email: string): Promise<string> {
  const code = await latestCode(server, email);
  expect(code).toMatch(/^[0-9]{6}$/);
  return code;
}

const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? "");

/** Step 1, with the keyboard: ask for the code, type it, press Enter. */
async function passTwoFactor(page: Page, email: string) {
  await page.getByRole("heading", { name: "メールアドレスの確認" }).waitFor();
  await page.getByRole("button", { name: "確認コードを送信" }).click();
  const codeInput = page.getByLabel("確認コード（6桁）");
  await codeInput.waitFor();
  expect(await focusedId(page)).toBe("code");
  await codeInput.pressSequentially(await codeFromMailbox(email));
  await codeInput.press("Enter");
}

async function linkSimulatedBank(page: Page) {
  await page.getByRole("heading", { name: "お支払いに使う口座の登録" }).waitFor();
  expect(await focusedId(page)).toBe("bank-heading");
  // Sandbox: the simulated bank's demo account is filled in.
  expect(await page.getByLabel("口座番号（普通）").inputValue()).toMatch(/^[0-9]{7}$/);
  await page.getByRole("button", { name: "この口座を登録する" }).click();
}

/** Waits for the browser to land on the shop and returns the query it carried. */
async function landedOn(page: Page, path: string): Promise<URLSearchParams> {
  await page.waitForURL((url) => url.origin === shop.url && url.pathname === path);
  expect(await page.getByRole("heading", { name: "Back at the shop" }).isVisible()).toBe(true);
  return new URL(page.url()).searchParams;
}

describe("the four workflows, from the payment link to success_url", () => {
  it("a new customer with a price (CONTRACT_WITH_CHARGE), with KYC, pays ¥1,200", async () => {
    const email = freshEmail();
    const { response, pageUrl } = await createLink(
      { buyer: { email, forceKyc: true }, charge: { price: 1200, description: "コーヒー豆 200g" } },
      "with-charge",
    );
    expect(response.charge?.workflow).toBe(PaymentWorkflow.CONTRACT_WITH_CHARGE);
    const { context, page } = await newPhonePage(browser);
    try {
      await page.goto(pageUrl);
      await page.getByRole("heading", { name: "メールアドレスの確認" }).waitFor();
      expect(await page.locator("#merchant-name").textContent()).toBe("Test Shop");
      expect(await page.locator("#amount").textContent()).toBe("¥1,200");
      expect(await page.locator("#description").textContent()).toBe("コーヒー豆 200g");
      expect(await page.locator("#progress li").allTextContents()).toHaveLength(4);
      expect(await page.locator("#two-factor-intro").textContent()).toContain(`${email[0]}***@example.jp`);

      await page.getByRole("button", { name: "確認コードを送信" }).click();
      await page.getByLabel("確認コード（6桁）").waitFor();
      // The resend throttle is shown: the button waits, with the seconds left.
      expect(await page.getByRole("button", { name: "コードを再送信" }).isDisabled()).toBe(true);
      expect(await page.locator("#resend-wait").textContent()).toMatch(/あと \d+ 秒/);
      await page.screenshot({ path: "/tmp/furikomi-pay-page.png", fullPage: true });
      // A wrong code is refused next to the field; the right one passes.
      const code = await codeFromMailbox(email);
      await page.getByLabel("確認コード（6桁）").fill(code === "000000" ? "111111" : "000000");
      await page.getByRole("button", { name: "確認する" }).click();
      await page.getByText("確認コードが正しくありません").waitFor();
      expect(await page.getByLabel("確認コード（6桁）").getAttribute("aria-invalid")).toBe("true");
      await page.getByLabel("確認コード（6桁）").fill(code);
      await page.getByRole("button", { name: "確認する" }).click();

      await linkSimulatedBank(page);

      await page.getByRole("heading", { name: "本人確認" }).waitFor();
      expect(await focusedId(page)).toBe("kyc-heading");
      await page.getByLabel("氏名").fill("山田 花子");
      await page.getByLabel("セイ（カタカナ）").fill("やまだ"); // hiragana: the page converts it
      await page.getByLabel("メイ（カタカナ）").fill("ハナコ");
      await page.getByLabel("生年月日").fill("1990-04-01");
      await page.getByLabel("住所").fill("東京都千代田区千代田1-1");
      await page.getByLabel("女性").check();
      await page.getByRole("button", { name: "本人確認情報を送信する" }).click();

      await page.getByRole("heading", { name: "お支払いの承認" }).waitFor();
      expect(await page.locator("#katakana_last_name").inputValue()).toBe("ヤマダ");
      await page.getByRole("button", { name: "¥1,200 を支払う" }).click();

      const query = await landedOn(page, "/success/with-charge");
      expect(query.get("order")).toBe("with-charge");
      expect(query.get("charge_id")).toBe(response.charge?.id);
      const { charge } = await server.client(PaymentService).getCharge({ charge: response.charge!.chargeId });
      expect(charge?.chargeStatus).toBe(ChargeStatus.SUCCESS);
      expect(charge?.finalAmount).toBe(1200);
    } finally {
      await context.close();
    }
  });

  it("a new customer without a price (CONTRACT) registers the account; nothing is charged", async () => {
    const email = freshEmail();
    const { response, pageUrl } = await createLink(
      { buyer: { email }, charge: { description: "月額プラン" } },
      "contract",
    );
    expect(response.charge?.workflow).toBe(PaymentWorkflow.CONTRACT);
    const { context, page } = await newPhonePage(browser);
    try {
      await page.goto(pageUrl);
      await passTwoFactor(page, email);
      expect(await page.locator("#amount").textContent()).toBe("今回の請求なし");
      await linkSimulatedBank(page);
      await page.getByRole("button", { name: "登録を承認する" }).click();
      const query = await landedOn(page, "/success/contract");
      expect(query.get("contract_id")).toBe(response.charge?.contractId);
      const { contract } = await server.client(PaymentService).getContract({ contract: response.charge!.contractId });
      expect(contract?.status).toBe(ContractStatus.ACTIVATED);
    } finally {
      await context.close();
    }
  });

  it("checks the account holder as banks hold names: refused on the page or by the server next to the field, stored in bank kana", async () => {
    const email = freshEmail();
    const { response, pageUrl } = await createLink(
      { buyer: { email }, charge: { description: "月額プラン" } },
      "bank-kana",
    );
    const { context, page } = await newPhonePage(browser);
    try {
      await page.goto(pageUrl);
      await passTwoFactor(page, email);
      await page.getByRole("heading", { name: "お支払いに使う口座の登録" }).waitFor();
      const holder = page.getByLabel("口座名義（カタカナ）");
      const holderError = page.locator("#account_holder-error");
      const register = page.getByRole("button", { name: "この口座を登録する" });
      // Kanji never leaves the page.
      await holder.fill("山田 太郎");
      await register.click();
      await expect.poll(() => holderError.textContent()).toContain("カタカナ・英大文字");
      // "/" is in the page's set (a merchant's bank may accept it), but not in the 全銀協 rules this
      // merchant's files follow: the server refuses it, and the page names the character in Japanese.
      await holder.fill("ヤマダ/タロウ");
      const answered = page.waitForResponse((res) => res.url().includes("LinkBankAccount"));
      await register.click();
      expect((await answered).status()).toBe(400);
      await expect.poll(() => holderError.textContent()).toContain("「/」は口座名義に使えません");
      expect(await page.getByRole("button", { name: "登録を承認する" }).isVisible()).toBe(false);
      // Hiragana with small kana: converted on the page, normalised to bank kana by the server.
      await holder.fill("きゃっしゅ みほ");
      await register.click();
      await page.getByRole("button", { name: "登録を承認する" }).waitFor();
      // Held on the link (sealed) until the payment is approved (then it becomes one of the customer's accounts).
      const stored = await findPendingBankAccount(server.ctx.tx.db, response.charge!.id);
      expect(stored?.accountHolder).toBe("ｷﾔﾂｼﾕ ﾐﾎ");
    } finally {
      await context.close();
    }
  });

  it("an existing active customer (CHARGE) pays from the linked account: no bank step", async () => {
    const email = freshEmail();
    const { customerId } = await seedActiveCustomer(server, { email });
    const { response, pageUrl } = await createLink(
      { buyer: { customerId }, charge: { price: 3000, description: "追加注文" } },
      "charge",
    );
    expect(response.charge?.workflow).toBe(PaymentWorkflow.CHARGE);
    const { context, page } = await newPhonePage(browser);
    try {
      await page.goto(pageUrl);
      await expect.poll(() => page.locator("#progress li").allTextContents()).toHaveLength(2);
      await passTwoFactor(page, email);
      await page.getByRole("heading", { name: "お支払いの承認" }).waitFor();
      expect(await focusedId(page)).toBe("approve-heading");
      await page.getByRole("button", { name: "¥3,000 を支払う" }).click();
      const query = await landedOn(page, "/success/charge");
      expect(query.get("status")).toBe("CHARGE_STATUS_SUCCESS");
      const { account } = await server.client(SandboxService).getBankAccount({ customerId });
      expect(account?.ledger.map((entry) => Number(entry.amount))).toEqual([-3000]);
    } finally {
      await context.close();
    }
  });

  it("a one-off charge (ONE_TIME_CHARGE) links an account for this payment only", async () => {
    const email = freshEmail();
    const { response, pageUrl } = await createLink(
      { buyer: { email }, charge: { price: 500, description: "単発購入", oneOffCharge: true } },
      "one-off",
    );
    expect(response.charge?.workflow).toBe(PaymentWorkflow.ONE_TIME_CHARGE);
    expect(response.charge?.customer?.id).toBeUndefined();
    const { context, page } = await newPhonePage(browser);
    try {
      await page.goto(pageUrl);
      await passTwoFactor(page, email);
      await linkSimulatedBank(page);
      await page.getByRole("button", { name: "¥500 を支払う" }).click();
      await landedOn(page, "/success/one-off");
      const { charge } = await server.client(PaymentService).getCharge({ charge: response.charge!.chargeId });
      expect(charge?.chargeStatus).toBe(ChargeStatus.SUCCESS);
    } finally {
      await context.close();
    }
  });
});

describe("the page", () => {
  it("a double click on Approve sends one approval and debits the account once; a reload shows the outcome", async () => {
    const email = freshEmail();
    const { customerId } = await seedActiveCustomer(server, { email });
    const { pageUrl } = await createLink({ buyer: { customerId }, charge: { price: 2500 } }, "double");
    const { context, page } = await newPhonePage(browser);
    try {
      let approvals = 0;
      page.on("request", (request) => {
        if (request.url().endsWith("/payments.v1.HostedPageService/ApprovePayment")) approvals++;
      });
      await page.goto(pageUrl);
      await passTwoFactor(page, email);
      await page.getByRole("button", { name: "¥2,500 を支払う" }).dblclick();
      await landedOn(page, "/success/double");
      expect(approvals).toBe(1);
      const { account } = await server.client(SandboxService).getBankAccount({ customerId });
      expect(account?.ledger.filter((entry) => Number(entry.amount) < 0).map((entry) => Number(entry.amount))).toEqual([
        -2500,
      ]);

      // Back on the link (a reload, a second tab): the outcome, never a second Approve button.
      await page.goto(pageUrl);
      await page.getByRole("heading", { name: "お支払いが完了しました" }).waitFor();
      expect(await page.getByRole("button", { name: /支払う/ }).count()).toBe(0);
      expect(await page.getByRole("link", { name: "ショップに戻る" }).getAttribute("href")).toContain(
        `${shop.url}/success/double`,
      );
    } finally {
      await context.close();
    }
  });

  it("a failed payment goes to failure_url, and the link then says why in plain words", async () => {
    const email = freshEmail();
    const { customerId } = await seedActiveCustomer(server, { email, balance: 100 });
    const { pageUrl } = await createLink({ buyer: { customerId }, charge: { price: 3000 } }, "poor");
    const { context, page } = await newPhonePage(browser);
    try {
      await page.goto(pageUrl);
      await passTwoFactor(page, email);
      await page.getByRole("button", { name: "¥3,000 を支払う" }).click();
      const query = await landedOn(page, "/failure/poor");
      expect(query.get("error_code")).toBe("ERROR_TYPE_PAYMENT_CHARGE_INSUFFICIENT_FUNDS");
      await page.goto(pageUrl);
      await page.getByRole("heading", { name: "お支払いができませんでした" }).waitFor();
      expect(await page.locator("#done-text").textContent()).toBe("口座の残高が不足しています。");
      const { account } = await server.client(SandboxService).getBankAccount({ customerId });
      expect(account?.ledger).toHaveLength(0);
    } finally {
      await context.close();
    }
  });

  it("switches to English and keeps the choice across a reload", async () => {
    const email = freshEmail();
    const { pageUrl } = await createLink(
      { buyer: { email }, charge: { price: 1200, description: "Coffee beans" } },
      "english",
    );
    const { context, page } = await newPhonePage(browser);
    try {
      await page.goto(pageUrl);
      await page.getByRole("heading", { name: "メールアドレスの確認" }).waitFor();
      expect(await page.getAttribute("html", "lang")).toBe("ja");
      await page.getByRole("button", { name: "Switch to English" }).click();
      await page.getByRole("heading", { name: "Confirm your e-mail" }).waitFor();
      expect(await page.getAttribute("html", "lang")).toBe("en");
      expect(await page.getByRole("button", { name: "Send the code" }).isVisible()).toBe(true);
      expect(await page.locator("#amount").textContent()).toBe("¥1,200");

      await page.reload();
      await page.getByRole("heading", { name: "Confirm your e-mail" }).waitFor();
      await page.getByRole("button", { name: "日本語に切り替える" }).click();
      await page.getByRole("heading", { name: "メールアドレスの確認" }).waitFor();
      expect(await page.getAttribute("html", "lang")).toBe("ja");
    } finally {
      await context.close();
    }
  });

  it("is served with security and cache headers", async () => {
    const pageResponse = await fetch(`${server.url}/pay/any-token`);
    expect(pageResponse.status).toBe(200);
    expect(pageResponse.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(pageResponse.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(pageResponse.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(pageResponse.headers.get("referrer-policy")).toBe("no-referrer");
    expect(pageResponse.headers.get("x-frame-options")).toBe("DENY");
    expect(pageResponse.headers.get("cache-control")).toBe("no-store");
    const html = await pageResponse.text();
    expect(html).not.toMatch(/https?:\/\//); // no external resources

    const script = /src="\.\/(assets\/pay\.js\?v=[^"]+)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${server.url}/pay/${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const revalidated = await fetch(`${server.url}/pay/${script}`, {
      headers: { "if-none-match": asset.headers.get("etag")! },
    });
    expect(revalidated.status).toBe(304);
  });

  it("shows a clear page for an unknown link and for one that expires, and never charges", async () => {
    const { context, page } = await newPhonePage(browser);
    try {
      await page.goto(`${server.url}/pay/no-such-link`);
      await page.getByRole("heading", { name: "お支払いリンクが見つかりません" }).waitFor();
      expect(await focusedId(page)).toBe("problem-heading");

      const email = freshEmail();
      const { response, pageUrl } = await createLink({ buyer: { email }, charge: { price: 1200 } }, "expired");
      await page.goto(pageUrl);
      await passTwoFactor(page, email);
      await page.getByRole("heading", { name: "お支払いに使う口座の登録" }).waitFor();
      // The link lapses while the customer is on the bank step. This moves the shared server
      // clock, so this test runs last in the file.
      server.clock.advance(91 * 60 * 1000);
      await page.getByRole("button", { name: "この口座を登録する" }).click();
      await page.getByRole("heading", { name: "このお支払いリンクは有効期限が切れています" }).waitFor();
      expect(await page.getByRole("link", { name: "ショップに戻る" }).getAttribute("href")).toContain(
        `${shop.url}/failure/expired`,
      );

      await page.reload();
      await page.getByRole("heading", { name: "このお支払いリンクは有効期限が切れています" }).waitFor();
      expect(await page.getByRole("button", { name: /支払う|確認コード|登録/ }).count()).toBe(0);
      const { charge } = await server.client(PaymentService).getCharge({ charge: response.charge!.chargeId });
      expect(charge?.chargeStatus).toBe(ChargeStatus.FAILURE);
      expect(charge?.error?.code).toBe(ErrorType.PAYMENT_LINK_EXPIRED);
    } finally {
      await context.close();
    }
  });

  it("a link finished more than 10 minutes ago says only that the payment is finished", async () => {
    const { response, pageUrl } = await createLink(
      { buyer: { email: freshEmail() }, charge: { price: 3456, description: "Private order" } },
      "finished",
    );
    await server.client(SandboxService).completePayment({ paymentLinkUrl: response.paymentLink!.url });
    const { context, page } = await newPhonePage(browser);
    try {
      await page.goto(pageUrl);
      await page.getByRole("heading", { name: "お支払いが完了しました" }).waitFor();
      expect(await page.locator("body").innerText()).toContain("Private order");
      // Moves the shared clock further on: runs after the expiry test.
      server.clock.advance(11 * 60 * 1000);
      await page.reload();
      await page.getByRole("heading", { name: "このお支払いは終了しています" }).waitFor();
      const text = await page.locator("body").innerText();
      expect(text).not.toContain("Private order");
      expect(text).not.toContain("3,456");
      expect(await page.getByRole("link", { name: "ショップに戻る" }).isVisible()).toBe(false);
    } finally {
      await context.close();
    }
  });
});
