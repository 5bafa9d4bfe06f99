import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { IntervalUnit, SubscriptionService } from "../../gen/payments/v1/subscription_service_pb.js";
import { launchBrowser } from "../helpers/browser.js";
import { enrolTotp, signInOnPage, signedInUser } from "../helpers/dashboard.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { advanceTo } from "../helpers/sandbox-clock.js";
import { checkScreen, newScreenPage, screenSizes } from "../helpers/screens.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// The dashboard's recurring-billing page (docs/guide/dashboard.md#recurring-billing), at 390×844 and
// 1280×800: the coming debit dates with their totals, the re-debit queue, plans and subscriptions;
// an operator creates a plan and pauses, resumes and cancels a subscription from it.

let server: TestServer;
let browser: Browser;
let email = "";
let secret = "";
const ids: Record<string, string> = {};

beforeAll(async () => {
  execFileSync(process.execPath, ["scripts/build.mjs", "--if-stale", "web"], { stdio: "inherit" });
  [server, browser] = await Promise.all([
    startTestServer({ clockStart: new Date("2026-01-10T00:00:00Z"), env: { SANDBOX_CLOCK: "manual" } }),
    launchBrowser(),
  ]);
  const user = await signedInUser(server);
  email = user.email;
  secret = await enrolTotp(server, user);
  const subscriptions = server.client(SubscriptionService);
  const { plan } = await subscriptions.createPlan({
    name: "月額会費",
    amount: 3300,
    intervalUnit: IntervalUnit.MONTH,
    intervalCount: 1,
    debitDay: 27,
  });
  ids.plan = plan!.planId;
  // One who pays, one whose 資金不足 leaves the subscription past due.
  for (const [name, balance] of [
    ["paying", 1_000_000],
    ["unpaid", 0],
  ] as const) {
    const { customerId } = await seedActiveCustomer(server, { balance, email: `${name}@example.jp` });
    const { subscription } = await subscriptions.createSubscription({
      customerId,
      planId: ids.plan,
      startPeriod: "2026-01",
    });
    ids[name] = subscription!.subscriptionId;
  }
  await advanceTo(server, "2026-01-28");
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe.each(screenSizes)("the recurring-billing page (%s)", (screen, viewport) => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    ({ context, page } = await newScreenPage(browser, viewport));
    await signInOnPage(page, server, email, secret);
  });
  afterAll(async () => context?.close());

  it("shows the next debit date with its total, the unpaid subscription in the re-debit queue, and the plan", async () => {
    await page.getByRole("link", { name: "定期課金" }).click();
    await page.getByRole("heading", { name: "定期課金", level: 1 }).waitFor();
    const calendar = page.getByRole("region", { name: "今後の振替日" });
    await expect.poll(() => calendar.textContent()).toContain("2026/02/27");
    expect(await calendar.textContent()).toContain("¥6,600");
    const queue = page.getByRole("region", { name: "再振替・未収の定期課金" });
    expect(await queue.textContent()).toContain(ids.unpaid);
    expect(await queue.textContent()).toContain("未収あり");
    expect(await queue.textContent()).not.toContain(ids.paying);
    const plans = page.getByRole("region", { name: "プラン" });
    expect(await plans.textContent()).toContain("月額会費");
    expect(await plans.textContent()).toContain("毎月");
    await checkScreen(page, `dashboard-billing-${screen}`);
  });

  it("creates a plan from the form, and lists it", async () => {
    await page.getByText("プランを作成").click();
    await page.getByLabel("プラン名").fill(`年会費 ${screen}`);
    await page.getByLabel("1回の料金（円）").fill("1200");
    await page.getByLabel("振替日（1〜28、末日は0）").fill("0");
    await page.getByRole("button", { name: "作成する" }).click();
    await page.getByRole("status").getByText(`プラン「年会費 ${screen}」を作成しました。`).waitFor();
    const plans = page.getByRole("region", { name: "プラン" });
    await expect.poll(() => plans.textContent()).toContain(`年会費 ${screen}`);
    expect(await plans.textContent()).toContain("末日");
  });

  it("creates a plan with a discount and 合算 from the form, checked with the proto's rules first", async () => {
    const name = `割引プラン ${screen}`;
    await page.getByText("プランを作成").click();
    const form = page.getByRole("form", { name: "プランを作成" });
    const label = (text: string) => form.getByLabel(text, { exact: true });
    await label("プラン名").fill(name);
    await label("1回の料金（円）").fill("4000");
    // A yearly plan bills every 1 to 3 years: 4 is refused in the form, nothing is sent.
    await label("周期の単位").selectOption("year");
    await label("間隔（月は1〜12、年は1〜3）").fill("4");
    await label("割引の種類").selectOption("percent");
    await label("割引額（円）または割引率（%）").fill("101");
    await label("割引する回数（初回から、1〜120）").fill("3");
    await label("資金不足のときの扱い").selectOption("carry_over");
    await label("1つの期の振替回数の上限（初回を含む、1〜4）").fill("3");
    await form.getByRole("button", { name: "作成する" }).click();
    const message = (text: string) => label(text).evaluate((input: HTMLInputElement) => input.validationMessage);
    expect(await message("間隔（月は1〜12、年は1〜3）")).toBe("年ごとの間隔は1〜3年です。");
    expect(await message("割引額（円）または割引率（%）")).toBe("割引率は1〜100%の整数にしてください。");
    await checkScreen(page, `dashboard-billing-plan-form-${screen}`);
    expect((await server.client(SubscriptionService).listPlans({})).plans.map((p) => p.name)).not.toContain(name);
    // The re-debit days are asked for with re-debits only.
    expect(await label("再振替までの日数（1〜20）").isVisible()).toBe(false);

    await label("周期の単位").selectOption("month");
    await label("間隔（月は1〜12、年は1〜3）").fill("1");
    await label("割引額（円）または割引率（%）").fill("50");
    await form.getByRole("button", { name: "作成する" }).click();
    await page.getByRole("status").getByText(`プラン「${name}」を作成しました。`).waitFor();
    const plans = page.getByRole("region", { name: "プラン" });
    await expect.poll(() => plans.textContent()).toContain(name);
    expect(await plans.textContent()).toContain("50%引き（初回から3回）");
    expect(await plans.textContent()).toContain("次回に合算（最大3回）");
    const created = (await server.client(SubscriptionService).listPlans({})).plans.find((p) => p.name === name);
    expect(created?.discount).toMatchObject({ off: { case: "percent", value: 50 }, periods: 3 });
    expect(created?.dunning).toMatchObject({ action: 3, maxAttempts: 3, cancelOnGiveUp: false });
    expect(created?.intervalUnit).toBe(IntervalUnit.MONTH);
  });
});

describe("an operator changes a subscription from the page", () => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    ({ context, page } = await newScreenPage(browser, screenSizes[1][1]));
    await signInOnPage(page, server, email, secret);
    await page.goto(`${server.url}/dashboard/#/billing`);
    await page.getByRole("heading", { name: "定期課金", level: 1 }).waitFor();
  });
  afterAll(async () => context?.close());

  const status = async () =>
    (await server.client(SubscriptionService).getSubscription({ subscriptionId: ids.paying })).subscription!;

  it("pauses, resumes, then cancels at period end after confirming", async () => {
    await page.getByRole("button", { name: `一時停止 ${ids.paying}` }).click();
    await page.getByRole("status").getByText(`${ids.paying} を一時停止しました。`).waitFor();
    expect((await status()).status).toBe(2);

    await page.getByRole("button", { name: `再開 ${ids.paying}` }).click();
    await page.getByRole("status").getByText(`${ids.paying} を再開しました。`).waitFor();
    expect((await status()).status).toBe(1);

    await page.getByRole("button", { name: `期末で解約 ${ids.paying}` }).click();
    await page.getByRole("dialog").getByRole("button", { name: "期末で解約" }).click();
    await page.getByRole("status").getByText(`${ids.paying} は今の期の終わりで解約されます。`).waitFor();
    expect((await status()).cancelAtPeriodEnd).toBe(true);
    await checkScreen(page, "dashboard-billing-after-changes-desktop");
  });
});
