import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { DashboardRole } from "../../gen/payments/v1/dashboard_roles_pb.js";
import { merchantContracts } from "../../src/flows/zengin-contracts.js";
import { launchBrowser } from "../helpers/browser.js";
import {
  dashboardPassword,
  enrolTotp,
  nextTotpCode,
  signInOnPage,
  signedInUser,
  type DashboardBrowser,
} from "../helpers/dashboard.js";
import { seedConsignor } from "../helpers/fixtures.js";
import { checkScreen, newScreenPage, screenSizes } from "../helpers/screens.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// Issue #31 finding 11 in the dashboard, at 390×844 and 1280×800 in Japanese: the consignor (委託者)
// settings on a page of their own with 預金種目 chosen from a list, the phone field styled like the
// others, each message beside the action that caused it, and an invitee told that two-step
// verification comes first.

let server: TestServer;
let browser: Browser;
let owner: DashboardBrowser & { email: string };
let ownerSecret = "";

beforeAll(async () => {
  execFileSync(process.execPath, ["scripts/build.mjs", "--if-stale", "web"], { stdio: "inherit" });
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  await seedConsignor(server, "7600000000");
  owner = await signedInUser(server);
  ownerSecret = await enrolTotp(server, owner);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** The vertical gap between two elements' boxes (0 when they overlap). */
async function gap(a: ReturnType<Page["locator"]>, b: ReturnType<Page["locator"]>): Promise<number> {
  const [x, y] = [(await a.boundingBox())!, (await b.boundingBox())!];
  return Math.max(0, Math.max(x.y, y.y) - Math.min(x.y + x.height, y.y + y.height));
}

describe.each(screenSizes)("settings, consignor and team (%s)", (screen, viewport) => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    ({ context, page } = await newScreenPage(browser, viewport));
    await signInOnPage(page, server, owner.email, ownerSecret);
  });
  afterAll(async () => context?.close());

  it("the settings page: no consignor form, the phone field like the others, 保存しました beside its button", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "APIキーとWebhook" }).click();
    await page.getByRole("heading", { name: "APIキー" }).first().waitFor();
    expect(await page.locator("main").getByText("委託者").count()).toBe(0);
    const style = (label: string) =>
      page.getByLabel(label, { exact: true }).evaluate((input) => {
        const css = getComputedStyle(input);
        return [css.borderTopWidth, css.borderTopColor, css.paddingLeft, css.borderRadius, css.height].join(" ");
      });
    expect(await style("お問い合わせ電話番号")).toBe(await style("お問い合わせメール"));

    const form = page.locator("form", { has: page.getByLabel("お問い合わせ電話番号") });
    await page.getByLabel("お問い合わせ電話番号").fill("03-1234-5678");
    const save = form.getByRole("button", { name: "保存" });
    await save.click();
    const saved = form.getByRole("status");
    await expect.poll(() => saved.textContent()).toBe("保存しました。");
    expect(await gap(saved, save)).toBeLessThan(40);
    // Not in the page-wide status line at the top.
    expect(await page.locator("p.status").allTextContents()).not.toContain("保存しました。");
    await checkScreen(page, `dashboard-settings-saved-${screen}`);
  });

  it("the consignor page of its own: 預金種目 from a list, 保存しました beside the form", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "口座振替の委託者" }).click();
    await page.getByRole("heading", { name: "口座振替の委託者設定" }).waitFor();
    await page.getByRole("button", { name: "編集 7600000000" }).click();
    const form = page.getByRole("form", { name: /7600000000/ });
    const accountType = form.getByLabel("預金種目");
    expect(await accountType.evaluate((el) => el.tagName)).toBe("SELECT");
    expect(await accountType.locator("option").allTextContents()).toEqual(["普通", "当座", "その他"]);
    await accountType.selectOption({ label: screen === "phone" ? "当座" : "普通" });
    await checkScreen(page, `dashboard-consignor-form-${screen}`);
    await form.getByRole("button", { name: "保存" }).click();
    const saved = page.getByRole("status").filter({ hasText: "保存しました" });
    await saved.waitFor();
    const table = page.getByRole("region").filter({ hasText: "7600000000" });
    expect(await gap(saved, table)).toBeLessThan(40);
    const [contract] = await merchantContracts(server.ctx, server.merchant.merchant_id);
    expect(contract.accountType).toBe(screen === "phone" ? 2 : 1);
    await checkScreen(page, `dashboard-consignor-saved-${screen}`);
  });

  it("an invitee lands on the two-step verification page told that it comes first", async () => {
    await owner.client.verifyStepUp({ code: nextTotpCode(server, ownerSecret) });
    const email = `invitee-${screen}@example.jp`;
    const { url } = await owner.client.inviteTeamMember({ email, role: DashboardRole.OPERATOR });
    const invitee = await context.browser()!.newContext({ viewport, locale: "ja-JP", timezoneId: "Asia/Tokyo" });
    try {
      const tab = await invitee.newPage();
      await tab.goto(url.replace(server.ctx.config.publicBaseUrl, server.url));
      await tab.getByLabel("新しいパスワード(12文字以上)").fill(dashboardPassword);
      await tab.getByRole("button", { name: "パスワードを設定して参加" }).click();
      const notice = tab.getByTestId("totp-first");
      await notice.waitFor();
      expect(await notice.textContent()).toContain("まず2段階認証を設定してください");
      await checkScreen(tab, `dashboard-invitee-totp-first-${screen}`);
    } finally {
      await invitee.close();
    }
  });
});
