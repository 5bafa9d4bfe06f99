import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { BusinessDetails } from "../../src/domain/onboarding-checklist.js";
import { saveChecklist } from "../../src/storage/onboarding-checklists.js";
import { launchBrowser } from "../helpers/browser.js";
import { appSignInCode, customerWithTwoMerchants, type CustomerWorld } from "../helpers/customer-app.js";
import { brokenWords, checkScreen, newScreenPage, screenSizes, halfWidthBrackets } from "../helpers/screens.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// Issue #31 in the customer app, at 390×844 and 1280×800 in Japanese and Japan time. Finding 7: the
// charges are compact cards (shop and amount, then state and date), more than two to a phone's
// screen, no word broken. Finding 9: the receipt is made out to the customer's name, names the
// issuer and its address, the 10% 消費税 the amount includes, a refund still being paid back, and
// is a 適格請求書（領収書） with the merchant's インボイス 登録番号 when it has one. Finding 13:
// full-width brackets in Japanese text.

let server: TestServer;
let browser: Browser;
let world: CustomerWorld;

const business: BusinessDetails = {
  kind: "corporation",
  corporateNumber: "4011001098993",
  tradeName: "株式会社珈琲豆",
  tradeNameKana: "カブシキガイシャコーヒーマメ",
  address: "東京都渋谷区渋谷1-2-3",
  representative: "山田 太郎",
  phone: "03-1234-5678",
  invoiceRegistrationNumber: "T4011001098993",
};

beforeAll(async () => {
  execFileSync(process.execPath, ["scripts/build.mjs", "--if-stale", "web"], { stdio: "inherit" });
  [server, browser] = await Promise.all([startTestServer({ env: { WORKERS: "off" } }), launchBrowser()]);
  world = await customerWithTwoMerchants(server, "screens", "佐藤 花子");
  await server.ctx.tx.write((trx) => saveChecklist(trx, world.first.merchant_id, { business }, server.clock.now()));
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** Signs in on the page with the e-mailed code (a minute later than any earlier code: no resend wait). */
async function signIn(page: Page) {
  server.clock.advance(60_000);
  await page.goto(`${server.url}/app/`);
  await page.getByLabel("メールアドレス").fill(world.email);
  await page.getByRole("button", { name: "確認コードを送信" }).click();
  const code = page.getByLabel("確認コード（6桁）");
  await code.waitFor(); // the code is sent once the field shows
  await code.fill(await appSignInCode(server, world.email));
  await page.getByRole("button", { name: "ログイン" }).click();
  await page.getByRole("heading", { name: "ご利用履歴" }).waitFor();
}

describe.each(screenSizes)("the customer app's cards and receipts (%s)", (screen, viewport) => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    ({ context, page } = await newScreenPage(browser, viewport));
    await signIn(page);
  });
  afterAll(async () => context?.close());

  it("lists the charges as compact cards: three to a screen, shop and amount then state and date (finding 7)", async () => {
    const cards = page.locator(".transaction");
    await expect.poll(() => cards.count()).toBe(3);
    // The header is one row: the title, the sandbox badge and the language on one line.
    expect(await page.locator(".topbar").evaluate((bar) => bar.getBoundingClientRect().height)).toBeLessThan(60);
    // Scrolled to the first card, every card fits on the screen at once.
    await cards.first().evaluate((card) => card.scrollIntoView({ block: "start" }));
    const fits = await cards.evaluateAll((all) =>
      all.map((card) => {
        const box = card.getBoundingClientRect();
        return box.top >= 0 && box.bottom <= window.innerHeight;
      }),
    );
    expect(fits).toEqual([true, true, true]);
    // Two lines: the shop and the amount, then the state and the date, each on one line.
    const first = cards.nth(2);
    const lineHeights = await first.evaluate((card) =>
      ["h2", ".transaction-meta"].map((selector) => {
        const element = card.querySelector(selector)!;
        return element.getBoundingClientRect().height / Number.parseFloat(getComputedStyle(element).lineHeight);
      }),
    );
    for (const lines of lineHeights) expect(lines).toBeLessThan(1.5);
    expect(await first.locator("h2").textContent()).toBe("Test Shop ¥1,500");
    expect(await first.locator(".transaction-meta").textContent()).toMatch(
      /^返金処理中 20\d\d\/\d\d\/\d\d \d\d:\d\d 定期便 11月分$/,
    );
    // The failure says why, on the card itself.
    expect(await cards.nth(0).locator(".failure-reason").textContent()).toContain("口座の残高が不足していたため");
    expect(await brokenWords(page, ["ご利用明細", "返金処理中", "Second Shop 二号店", "¥1,500", "¥2,400"])).toEqual([]);
    expect(await halfWidthBrackets(page)).toEqual([]);
    await checkScreen(page, `app-cards-${screen}`);

    // The details open under the card.
    await first.getByText("詳細").click();
    expect(await first.locator("details .facts").textContent()).toContain("¥500（返金処理中）");
    await checkScreen(page, `app-card-details-${screen}`);
  });

  it("a merchant with a 登録番号: a 適格請求書（領収書） made out to the customer's name, with 消費税 and the pending refund (finding 9)", async () => {
    await page.goto(`${server.url}/app/#/receipt/${world.refundedChargeId}`);
    await page.getByRole("heading", { name: "適格請求書（領収書）" }).waitFor();
    const receipt = (await page.locator(".receipt").textContent()) ?? "";
    expect(await page.locator(".receipt-to").textContent()).toBe("佐藤 花子 様");
    expect(receipt).not.toContain(world.email);
    expect(receipt).toContain("¥1,500（税込）");
    expect(receipt).toContain("10%対象 ¥1,500（内消費税 ¥136）");
    const facts = await page.locator(".receipt .facts").evaluate((list) => {
      const rows: Record<string, string> = {};
      for (const term of list.querySelectorAll("dt"))
        rows[term.textContent ?? ""] = term.nextElementSibling?.textContent ?? "";
      return rows;
    });
    expect(facts).toMatchObject({
      税率: "10%",
      内消費税: "¥136",
      返金処理中: "¥500",
      発行者: "株式会社珈琲豆",
      所在地: "東京都渋谷区渋谷1-2-3",
      登録番号: "T4011001098993",
    });
    expect(facts).not.toHaveProperty("返金済みの額");
    expect(await halfWidthBrackets(page)).toEqual([]);
    await checkScreen(page, `app-receipt-qualified-${screen}`);
  });

  it("a merchant without one: a 領収書 made out to the account's holder, its name as issuer (finding 9)", async () => {
    await page.goto(`${server.url}/app/#/receipt/${world.paidChargeId}`);
    await page.getByRole("heading", { name: "領収書", exact: true }).waitFor();
    expect(await page.locator(".receipt-to").textContent()).toBe("ﾔﾏﾀﾞ ﾀﾛｳ 様");
    const receipt = (await page.locator(".receipt").textContent()) ?? "";
    expect(receipt).not.toContain(world.email);
    expect(receipt).toContain("10%対象 ¥2,400（内消費税 ¥218）");
    expect(receipt).toContain("Second Shop 二号店");
    expect(receipt).not.toContain("登録番号");
    await checkScreen(page, `app-receipt-${screen}`);
  });
});
