import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { decodeDebitFile, encodeDebitFile } from "../../src/domain/zengin-debit-file.js";
import { createDashboardUser } from "../../src/flows/dashboard-auth.js";
import { addContract, merchantContracts } from "../../src/flows/zengin-contracts.js";
import { runZenginCycle } from "../../src/flows/zengin-cycle.js";
import { zenginExchangeOf } from "../../src/flows/zengin-exchange.js";
import { axeViolations, launchBrowser } from "../helpers/browser.js";
import { dashboardPassword } from "../helpers/dashboard.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import type { TestServer } from "../helpers/test-server.js";
import { startZenginServer } from "../helpers/zengin-server.js";

// The dashboard's bank files page in a real browser: a debit date sent, answered and reconciled,
// and a result file quarantined, with its warning and its reason.

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let dir: string;
const email = "files@example.jp";

beforeAll(async () => {
  execFileSync(process.execPath, ["scripts/build.mjs", "--if-stale", "web"], { stdio: "inherit" });
  [server, browser] = await Promise.all([
    startZenginServer({ consignorCode: "5234567891", simulatedBank: false }),
    launchBrowser(),
  ]);
  dir = server.ctx.config.zengin.dir;
  await createDashboardUser(server.ctx, {
    merchantId: server.merchant.merchant_id,
    email,
    password: dashboardPassword,
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "en-GB" });
  page = await context.newPage();
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.stop();
});

describe("the dashboard's bank files", () => {
  it("shows each debit date reconciled, the files with their state, and a quarantined result with its reason", async () => {
    const { customerId } = await seedActiveCustomer(server, { accountNumber: "0012345" });
    await server.client(PaymentService).createOffSessionPaymentAsync({ customerId, charge: { price: 2500 } });
    await server.jobs.drain();
    const exchange = zenginExchangeOf(server.ctx, () => {});
    server.clock.advance(Date.parse("2026-11-25T06:00:00Z") - server.clock.now().getTime());
    const { written } = await runZenginCycle(server.ctx, exchange);
    expect(written).toEqual(["Z91_5234567891_20261126.txt"]);
    const sent = decodeDebitFile(readFileSync(join(dir, "outgoing", written[0])), false);
    if (!sent.ok) throw new Error(sent.reason);
    const wrongAmount = sent.file.records.map((record) => ({ ...record, amount: record.amount - 1 }));
    writeFileSync(join(dir, "incoming", "R91_bad.txt"), encodeDebitFile({ ...sent.file, records: wrongAmount }, true));
    writeFileSync(join(dir, "incoming", "R91_good.txt"), encodeDebitFile(sent.file, true));
    server.clock.advance(2 * 86_400_000);
    const report = await runZenginCycle(server.ctx, exchange);
    expect([report.imported, report.quarantined.map((file) => file.name)]).toEqual([["R91_good.txt"], ["R91_bad.txt"]]);

    await page.goto(`${server.url}/dashboard/`);
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByLabel("Password").fill(dashboardPassword);
    await page.getByLabel("Password").press("Enter");
    await page.getByRole("link", { name: "Bank files" }).click();
    await page.getByRole("heading", { name: "Bank files" }).waitFor();
    expect(await page.getByRole("alert").textContent()).toBe(
      "1 result files are in quarantine: nothing of them was applied.",
    );
    const dates = page.getByRole("region", { name: "Reconciliation by debit date" });
    expect(await dates.getByRole("row").nth(1).getByRole("cell").allTextContents()).toEqual([
      "2026-11-26",
      "1 / 1",
      "¥2,500",
      "¥2,500",
      "¥0",
      "✓",
    ]);
    const files = page.getByRole("region", { name: "Zengin files sent and received" });
    const rowOf = async (name: string) =>
      (await files.getByRole("row").filter({ hasText: name }).getByRole("cell").allTextContents()).slice(0, 10);
    expect(await rowOf("Z91_5234567891_20261126.txt")).toEqual([
      "Z91_5234567891_20261126.txt",
      "Account debits (91)",
      "Sent",
      "2026-11-26",
      "Result received",
      "1",
      "¥2,500",
      "1 ¥2,500",
      "0 ¥0",
      "",
    ]);
    const quarantined = await rowOf("R91_bad.txt");
    expect(quarantined[4]).toBe("Quarantined");
    expect(quarantined[9]).toMatch(/amount 2499 is not 2500/);
  });

  it("lists both of the merchant's contracts on the consignor page and edits the second", async () => {
    await addContract(server.ctx, server.merchant.merchant_id, {
      scope: "bank",
      code: "5234567892",
      transferCode: "5234567893",
      name: "ﾃｽﾄ ｼﾖﾂﾌﾟ",
      bankCode: "0184",
      branchCode: "001",
      accountType: "1",
      accountNumber: "7654321",
    });
    // The consignor contracts have their own page, not under "API keys & webhooks" (issue #31).
    await page.getByRole("link", { name: "Direct debit consignor" }).click();
    const contracts = page.getByRole("region", { name: "Direct-debit contracts" });
    await contracts.waitFor();
    const cells = async (row: number) =>
      (await contracts.getByRole("row").nth(row).getByRole("cell").allTextContents()).slice(0, 5);
    expect(await contracts.getByRole("row").count()).toBe(3);
    expect(await cells(1)).toEqual(["Collection agent", "5234567891", "Every bank but ゆうちょ", "Every debit", "—"]);
    expect(await cells(2)).toEqual(["Bank", "5234567892", "0184", "Every debit", "—"]);

    await page.getByRole("button", { name: "Edit 5234567892" }).click();
    const form = page.getByRole("form", { name: "Contract 5234567892" });
    await form.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await form.getByLabel("Result files list").selectOption("failures_only");
    await form.getByLabel("Consignor name (kana)").fill("かぶしきがいしゃ てすと");
    await form.getByRole("button", { name: "Save" }).click();
    await page.getByRole("heading", { name: "Contract 5234567892" }).waitFor({ state: "detached" });
    expect(await cells(2)).toEqual(["Bank", "5234567892", "0184", "Failed debits only (不能分のみ)", "—"]);
    expect(await cells(1)).toEqual(["Collection agent", "5234567891", "Every bank but ゆうちょ", "Every debit", "—"]);
    const [first, second] = await merchantContracts(server.ctx, server.merchant.merchant_id);
    expect([first.resultStyle, second.resultStyle, second.name]).toEqual(["all", "failures_only", "ｶﾌﾞｼｷｶﾞｲｼﾔ ﾃｽﾄ"]);
  });
});
