import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { formatJstDateTime } from "../../src/domain/display-format.js";
import { launchBrowser } from "../helpers/browser.js";
import { enrolTotp, signInOnPage, signedInUser } from "../helpers/dashboard.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { checkScreen, newScreenPage, screenSizes } from "../helpers/screens.js";
import type { TestServer } from "../helpers/test-server.js";
import { advanceAndDrain, startZenginServer } from "../helpers/zengin-server.js";

// Issue #31 finding 8 and 7 in the dashboard, at 390×844 and 1280×800 in Japanese and Japan time:
// the charge page's creation time, metadata and timeline; a bank file opened on its records with
// each customer, amount and 振替結果コード; the phone's charge cards small enough that three fit.

let server: TestServer;
let browser: Browser;
let email = "";
let secret = "";
const charges: string[] = [];
let requestFile = "";

beforeAll(async () => {
  execFileSync(process.execPath, ["scripts/build.mjs", "--if-stale", "web"], { stdio: "inherit" });
  [server, browser] = await Promise.all([
    startZenginServer({ consignorCode: "7500000000", simulatedBank: true }),
    launchBrowser(),
  ]);
  // 9999993: the simulated bank answers 3 (預金者の都合による振替停止).
  for (const [accountNumber, price, kana] of [
    ["0012345", 1800, ["サトウ", "ハナコ"]],
    ["0023456", 2500, ["スズキ", "イチロウ"]],
    ["9999993", 3300, ["ヤマダ", "タロウ"]],
  ] as const) {
    const { customerId } = await seedActiveCustomer(server, {
      accountNumber,
      balance: 100_000,
      kana: [...kana],
      email: `${kana[1].toLowerCase()}-${price}@example.jp`,
    });
    const { chargeId } = await server.client(PaymentService).createOffSessionPaymentAsync({
      customerId,
      charge: { price, description: "定期便", metadata: { order_id: `A-${price}`, plan: "monthly" } },
    });
    charges.push(chargeId);
  }
  await advanceAndDrain(server, "2026-11-25T06:00:00Z");
  await advanceAndDrain(server, "2026-11-26T08:00:00Z");
  requestFile = "Z91_7500000000_20261126.txt";
  const user = await signedInUser(server);
  email = user.email;
  secret = await enrolTotp(server, user);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe.each(screenSizes)("the dashboard's details (%s)", (screen, viewport) => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    ({ context, page } = await newScreenPage(browser, viewport));
    await signInOnPage(page, server, email, secret);
  });
  afterAll(async () => context?.close());

  it("the charge page shows when it was created (JST), its metadata and its timeline (finding 8)", async () => {
    const refused = charges[2];
    const { charge } = await server.client(PaymentService).getCharge({ charge: refused });
    await page.goto(`${server.url}/dashboard/#/charges/${refused}`);
    const created = page.getByTestId("charge-created");
    await created.waitFor();
    expect(await created.textContent()).toBe(
      formatJstDateTime(new Date(Number(charge!.createdAt!.seconds) * 1000 + charge!.createdAt!.nanos / 1e6)),
    );
    const metadata = page.getByTestId("charge-metadata");
    expect(await metadata.locator("dt").allTextContents()).toEqual(["order_id", "plan"]);
    expect(await metadata.locator("dd").allTextContents()).toEqual(["A-3300", "monthly"]);
    const timeline = page.getByRole("region", { name: "経過" });
    const steps = (await timeline.locator("tbody tr").allTextContents()).join("\n");
    expect(steps).toContain("決済を作成(¥3,300)");
    expect(steps).toContain(`全銀ファイルで銀行へ依頼(${requestFile})`);
    expect(steps).toContain("銀行の回答: 失敗(振替結果コード 3: 預金者の都合による振替停止)");
    expect(steps.indexOf("決済を作成")).toBeLessThan(steps.indexOf("銀行の回答"));
    await checkScreen(page, `dashboard-charge-timeline-${screen}`);
  });

  it("the bank files page opens a file on its records: customer, amount, 振替結果コード (finding 8)", async () => {
    await page.goto(`${server.url}/dashboard/#/zengin`);
    await page.getByRole("link", { name: `${requestFile} の明細を開く` }).click();
    await page.getByRole("heading", { name: `ファイルの明細 ${requestFile}` }).waitFor();
    const results = page.getByTestId("record-result");
    await expect.poll(() => results.count()).toBe(3);
    expect((await results.allTextContents()).sort()).toEqual(
      ["振替結果コード 3: 預金者の都合による振替停止", "振替済み", "振替済み"].sort(),
    );
    const records = page.getByRole("region", { name: "ファイルの明細" });
    const refusedRow = records.locator("tbody tr", { hasText: "振替結果コード 3" });
    expect(await refusedRow.textContent()).toContain("ヤマダ タロウ");
    expect(await refusedRow.textContent()).toContain("¥3,300");
    await checkScreen(page, `dashboard-zengin-records-${screen}`);
    await refusedRow.getByRole("link", { name: charges[2] }).click();
    await page.getByTestId("charge-created").waitFor();
    expect(page.url()).toContain(charges[2]);
  });

  it("the charges list: on a phone more than two charge cards fit on one screen (finding 7)", async () => {
    await page.goto(`${server.url}/dashboard/#/charges`);
    const rows = page.locator(".table-wrap tbody tr");
    await expect.poll(() => rows.count()).toBe(3);
    await checkScreen(page, `dashboard-charges-compact-${screen}`);
    if (screen !== "phone") return;
    const first = (await rows.nth(0).boundingBox())!;
    const third = (await rows.nth(2).boundingBox())!;
    // Three cards, from the first one's top to the third one's bottom, within one screen's height.
    expect(third.y + third.height - first.y).toBeLessThan(viewport.height);
  });
});
