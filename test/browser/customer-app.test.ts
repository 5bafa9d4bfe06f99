import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Locator, Page } from "playwright-core";
import { ContractStatus } from "../../gen/payments/v1/enums_pb.js";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { setSupportContact } from "../../src/flows/merchants.js";
import { axeViolations, launchBrowser, newPhonePage } from "../helpers/browser.js";
import { brokenWords } from "../helpers/screens.js";
import { appSignInCode, customerWithTwoMerchants, type CustomerWorld } from "../helpers/customer-app.js";
import { eventsOfType } from "../helpers/on-session.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// The customer app in a real browser (docs/guide/customer-app.md): a customer with two shops
// signs in with the code from their mailbox, reads the list (a success, a triggered failure and a
// partial refund), opens a receipt, and asks a shop to stop; on a 390×844 phone, keyboard only,
// axe-core on every view, and a screenshot of each under test-results/customer-app/.

let server: TestServer;
let browser: Browser;
let world: CustomerWorld;
const shots = "test-results/customer-app";

beforeAll(async () => {
  execFileSync(process.execPath, ["scripts/build.mjs", "--if-stale", "web"], { stdio: "inherit" });
  [server, browser] = await Promise.all([startTestServer({ env: { WORKERS: "off" } }), launchBrowser()]);
  await setSupportContact(server.ctx, server.merchant.merchant_id, {
    email: "help@shop.example.jp",
    phone: "03-1234-5678",
    url: "https://shop.example.jp/help",
  });
  world = await customerWithTwoMerchants(server);
  mkdirSync(shots, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** Each view: a screenshot named by step, and no axe violation. */
async function checkView(page: Page, step: string) {
  await page.screenshot({ path: `${shots}/${step}.png`, fullPage: true });
  expect(await axeViolations(page), step).toEqual([]);
}

/** Presses Tab until the element has the focus: it must be reachable by keyboard. */
async function tabTo(page: Page, target: Locator) {
  for (let presses = 0; presses < 80; presses++) {
    if (await target.evaluate((element) => element === document.activeElement)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`could not reach ${target} with Tab`);
}

async function signIn(page: Page) {
  await page.goto(`${server.url}/app/`);
  await page.getByRole("heading", { name: "ログイン" }).waitFor();
  expect(await page.locator(".sandbox-badge").textContent()).toBe("テスト環境（サンドボックス）");
  await checkView(page, "1-sign-in");
  await tabTo(page, page.getByLabel("メールアドレス"));
  await page.keyboard.type(world.email);
  await page.keyboard.press("Enter");
  await page.getByLabel("確認コード（6桁）").waitFor();
  expect(await page.evaluate(() => document.activeElement?.id)).toBe("code");
  await checkView(page, "2-code");
  await page.keyboard.type(await appSignInCode(server, world.email));
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "ご利用履歴" }).waitFor();
}

describe("a customer with two shops, on a phone, keyboard only", () => {
  it("signs in, reads the list, opens a receipt, asks a shop to stop, and switches to English", async () => {
    const { context, page } = await newPhonePage(browser);
    try {
      await signIn(page);

      // The list: newest first — the triggered failure, the second shop's payment, the refunded one.
      const items = page.locator(".transaction");
      await expect.poll(() => items.count()).toBe(3);
      const [failed, paid, refunded] = [items.nth(0), items.nth(1), items.nth(2)];
      expect(await failed.locator("h2").textContent()).toContain("Test Shop");
      expect(await failed.textContent()).toContain("失敗");
      expect(await failed.textContent()).toContain("口座の残高が不足していたため");
      expect(await failed.getByRole("link", { name: "領収書を表示" }).count()).toBe(0);
      expect(await paid.textContent()).toContain("Second Shop 二号店");
      expect(await paid.textContent()).toContain("成功");
      expect(await refunded.textContent()).toContain("¥500（返金処理中）");
      expect(await refunded.textContent()).toContain("¥1,500");
      await checkView(page, "3-history");
      // No word broken mid-word (issue #31 finding 7): the title, the states, an e-mail.
      expect(await brokenWords(page, ["ご利用明細", "返金処理中", "定期便 11月分"])).toEqual([]);

      // Filter by shop with the keyboard: the second shop only.
      await tabTo(page, page.getByLabel("お店"));
      await page.keyboard.press("ArrowDown");
      await page.keyboard.press("ArrowDown");
      await tabTo(page, page.getByRole("button", { name: "表示する" }));
      await page.keyboard.press("Enter");
      await expect.poll(() => items.count()).toBe(1);
      expect(await items.first().textContent()).toContain("Second Shop 二号店");

      // The receipt of that payment.
      await tabTo(page, items.first().getByRole("link", { name: "領収書を表示" }));
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { name: "領収書" }).waitFor();
      const receipt = await page.locator(".receipt").textContent();
      expect(receipt).toContain("ﾔﾏﾀﾞ ﾀﾛｳ 様");
      expect(receipt).not.toContain(world.email);
      expect(receipt).toContain("¥2,400");
      expect(receipt).toContain("Second Shop 二号店");
      expect(receipt).toContain(world.paidChargeId);
      await checkView(page, "4-receipt");
      await page.emulateMedia({ media: "print" });
      await page.screenshot({ path: `${shots}/4-receipt-print.png`, fullPage: true });
      expect(await page.getByRole("button", { name: "印刷する / PDFで保存" }).isVisible()).toBe(false);
      await page.emulateMedia({ media: "screen" });

      // The shops: both, each contract with its masked account and consent date.
      await tabTo(page, page.getByRole("link", { name: "お店と口座" }));
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { name: "お店と口座" }).waitFor();
      const cards = page.locator(".merchant-card");
      expect(await cards.count()).toBe(2);
      expect(await cards.nth(0).textContent()).toContain("help@shop.example.jp");
      for (const card of [cards.nth(0), cards.nth(1)]) {
        expect(await card.textContent()).toMatch(/\*+567/);
        expect(await card.textContent()).toContain("有効");
        expect(await card.textContent()).toContain("口座振替の同意日");
      }
      await checkView(page, "5-merchants");

      // Asks the second shop to stop.
      await tabTo(page, cards.nth(1).getByRole("link", { name: "解約を依頼する" }));
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { name: "解約の依頼" }).waitFor();
      await checkView(page, "6-stop-request");
      await tabTo(page, page.getByLabel("理由（任意）"));
      await page.keyboard.type("引っ越しのため");
      await page.keyboard.press("Tab");
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { name: "お店と口座" }).waitFor();
      await expect.poll(() => cards.nth(1).textContent()).toContain("解約を依頼済み");
      expect(await page.getByRole("status").textContent()).toBe("解約の依頼をお店に送信しました。");
      await checkView(page, "7-stop-requested");
      const events = await eventsOfType(server, world.second.merchant_id, "EVENT_TYPE_CONTRACT_STOP_REQUESTED");
      expect(events).toEqual([expect.objectContaining({ token_id: world.secondContractId, reason: "引っ越しのため" })]);
      const contract = await server
        .client(PaymentService, world.second.api_key)
        .getContract({ contract: world.secondContractId });
      expect(contract.contract?.status).toBe(ContractStatus.ACTIVATED);

      // English, kept across a reload.
      await tabTo(page, page.getByRole("button", { name: "Switch to English" }));
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { name: "Shops and accounts" }).waitFor();
      await page.reload();
      await page.getByRole("heading", { name: "Shops and accounts" }).waitFor();
      expect(await page.evaluate(() => document.documentElement.lang)).toBe("en");
      await checkView(page, "8-english");
      expect(await page.evaluate(() => navigator.serviceWorker?.getRegistrations().then((r) => r.length) ?? 0)).toBe(0);
    } finally {
      await context.close();
    }
  });

  it("is installable without caching anything personal: a manifest, icons, no-store pages", async () => {
    const home = await fetch(`${server.url}/app/`);
    expect(home.headers.get("cache-control")).toBe("no-store");
    const html = await home.text();
    const manifestPath = /<link rel="manifest" href="([^"]+)"/.exec(html)?.[1];
    expect(manifestPath).toMatch(/^\/app\/manifest\.webmanifest\?v=/);
    const manifest = await fetch(`${server.url}${manifestPath}`);
    expect(manifest.headers.get("content-type")).toBe("application/manifest+json");
    const body = await manifest.json();
    expect(body).toMatchObject({ start_url: "/app/", scope: "/app/", display: "standalone" });
    for (const icon of body.icons as Array<{ src: string; type: string }>) {
      const res = await fetch(`${server.url}${icon.src}`);
      expect(res.status, icon.src).toBe(200);
      expect(res.headers.get("content-type")).toBe(icon.type);
    }
    expect(html).not.toMatch(/serviceWorker/);
  });
});
