import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { IntervalUnit, SubscriptionService } from "../../gen/payments/v1/subscription_service_pb.js";
import { launchBrowser } from "../helpers/browser.js";
import { enrolTotp, nextTotpCode, signInOnPage, signedInUser } from "../helpers/dashboard.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { checkScreen, newScreenPage, screenSizes } from "../helpers/screens.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// The CSV import of subscriptions on the recurring-billing page
// (docs/guide/recurring-billing.md#importing-subscriptions-from-a-csv-file), at 390×844 and 1280×800:
// upload, the rows as they will be applied and those that will not with why, confirmation with a
// code, the result file with the subscription ids. axe-core finds nothing at each step.

let server: TestServer;
let browser: Browser;
let email = "";
let secret = "";
let planId = "";

beforeAll(async () => {
  execFileSync(process.execPath, ["scripts/build.mjs", "--if-stale", "web"], { stdio: "inherit" });
  [server, browser] = await Promise.all([
    startTestServer({ clockStart: new Date("2026-01-10T00:00:00Z"), env: { SANDBOX_CLOCK: "manual" } }),
    launchBrowser(),
  ]);
  const user = await signedInUser(server, { role: "operator" });
  email = user.email;
  secret = await enrolTotp(server, user);
  const { plan } = await server.client(SubscriptionService).createPlan({
    name: "月額会費",
    amount: 3300,
    intervalUnit: IntervalUnit.MONTH,
    intervalCount: 1,
    debitDay: 27,
  });
  planId = plan!.planId;
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe.each(screenSizes)("importing subscriptions from the page (%s)", (screen, viewport) => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    ({ context, page } = await newScreenPage(browser, viewport));
    await signInOnPage(page, server, email, secret);
  });
  afterAll(async () => context?.close());

  it("previews the rows, confirms with a code, and offers the result with the subscription ids", async () => {
    const people = await Promise.all(
      ["aki", "ben"].map((name) => seedActiveCustomer(server, { email: `${name}-${screen}@example.jp` })),
    );
    const csv = [
      "customer_email,customer_id,plan_id,start_period,amount",
      `aki-${screen}@example.jp,,${planId},,`,
      `,${people[1].customerId},${planId},2026-03,5000`,
      `nobody-${screen}@example.jp,,${planId},,`,
    ].join("\r\n");
    await page.goto(`${server.url}/dashboard/#/billing`);
    await page.getByRole("heading", { name: "定期課金", level: 1 }).waitFor();
    await page
      .getByLabel("CSVファイル")
      .setInputFiles({ name: `members-${screen}.csv`, mimeType: "text/csv", buffer: Buffer.from(csv) });
    await page.getByRole("button", { name: "アップロード" }).click();
    await page.getByRole("heading", { name: "取り込みの確認" }).waitFor();
    expect(await page.getByTestId("import-valid").textContent()).toBe("2");
    expect(await page.getByTestId("import-invalid").textContent()).toBe("1");
    const toCreate = page.getByRole("region", { name: "作成される定期課金" });
    expect(await toCreate.textContent()).toContain("2026/01/27");
    expect(await toCreate.textContent()).toContain("2026/03/27");
    expect(await toCreate.textContent()).toContain("¥5,000");
    const notImported = page.getByRole("region", { name: "作成されない行" });
    expect(await notImported.textContent()).toContain("このメールアドレスに紐づく顧客がいません");
    await checkScreen(page, `dashboard-billing-import-preview-${screen}`);

    await page.getByLabel("6桁のコード").fill(nextTotpCode(server, secret));
    await page.getByRole("button", { name: "確定して作成する" }).click();
    await page.getByRole("dialog").getByText("2件の定期課金を作成します。よろしいですか?").waitFor();
    await page.getByRole("dialog").getByRole("button", { name: "確定して作成する" }).click();
    await page.getByRole("status").getByText("2件の定期課金を作成しました(作成されなかった行: 1件)。").waitFor();

    const subscriptions = page.getByRole("region", { name: "定期課金", exact: true });
    await expect.poll(() => subscriptions.textContent()).toContain(people[0].customerId);
    expect(await subscriptions.textContent()).toContain(people[1].customerId);
    const imports = page.getByRole("region", { name: "定期課金のCSV取り込み" });
    expect(await imports.textContent()).toContain(`members-${screen}.csv`);
    await checkScreen(page, `dashboard-billing-import-done-${screen}`);

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: `結果CSVをダウンロード members-${screen}.csv` }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`members-${screen}-result.csv`);
    const rows = parse(readFileSync((await download.path())!), { bom: true, columns: true }) as Array<
      Record<string, string>
    >;
    expect(rows.map((row) => [row.status, /^sub-/.test(row.subscription_id)])).toEqual([
      ["created", true],
      ["created", true],
      ["failed", false],
    ]);
  });
});
