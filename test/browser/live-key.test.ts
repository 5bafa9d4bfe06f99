import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { BusinessKind } from "../../gen/payments/v1/dashboard_service_pb.js";
import { EventType } from "../../gen/payments/v1/enums_pb.js";
import { merchantTermsVersion } from "../../src/domain/onboarding-checklist.js";
import { addContract } from "../../src/flows/zengin-contracts.js";
import { recordEvent } from "../../src/storage/events.js";
import { axeViolations, launchBrowser, newDesktopPage } from "../helpers/browser.js";
import { enrolTotp, signInOnPage, signedInUser } from "../helpers/dashboard.js";
import { runCli } from "../helpers/process-server.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// The last step of going live (docs/guide/getting-started.md), in a real browser on a production
// deployment: the owner cannot issue a live key while the checklist waits; the operator approves it
// with the CLI; the owner then issues an sk_live_ key from the settings page.
// The checklist is filled over the dashboard API here (test/browser/sign-up.test.ts fills it on the
// page, in the sandbox); its webhook item is recorded as delivered, since production sends webhooks
// to public https addresses only and this test's receiver is on loopback.

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let merchantId = "";
let email = "";
let secret = "";

beforeAll(async () => {
  execFileSync(process.execPath, ["scripts/build.mjs", "--if-stale", "web"], { stdio: "inherit" });
  [server, browser] = await Promise.all([
    startTestServer({ env: { MODE: "production", WORKERS: "off" } }),
    launchBrowser(),
  ]);
  merchantId = (await server.newMerchant("珈琲豆の店")).merchant_id;
  await server.ctx.tx.db
    .updateTable("merchants")
    .set({ onboarding_state: "incomplete" })
    .where("id", "=", merchantId)
    .execute();
  const owner = await signedInUser(server, { merchantId });
  email = owner.email;
  secret = await enrolTotp(server, owner);
  await owner.client.saveBusinessDetails({
    business: {
      kind: BusinessKind.CORPORATION,
      corporateNumber: "4011001098993",
      tradeName: "株式会社珈琲豆",
      tradeNameKana: "カブシキガイシャコーヒーマメ",
      address: "東京都渋谷区渋谷1-2-3",
      representative: "山田 太郎",
      phone: "03-1234-5678",
    },
  });
  await owner.client.acceptMerchantTerms({ version: merchantTermsVersion });
  await addContract(server.ctx, merchantId, {
    name: "ｺｰﾋｰﾏﾒ",
    branchCode: "001",
    accountType: "1",
    accountNumber: "1234567",
    scope: "agent",
    code: "7000000002",
    bankCode: "0001",
  });
  const now = server.clock.now();
  const eventId = await server.ctx.tx.write((trx) =>
    recordEvent(trx, { merchantId, type: EventType.TEST_CHARGE_CREATED, content: { test: true }, now }),
  );
  await server.ctx.tx.db
    .updateTable("events")
    .set({ delivered_at: now.toISOString() })
    .where("id", "=", eventId)
    .execute();
  await server.ctx.tx.db
    .updateTable("onboarding_checklists")
    .set({ webhook_test_event_id: eventId })
    .where("merchant_id", "=", merchantId)
    .execute();
  await owner.client.submitOnboarding({});
  ({ context, page } = await newDesktopPage(browser));
  await signInOnPage(page, server, email, secret);
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.stop();
});

describe("a live key on a production deployment", () => {
  it("is refused while the checklist is in review", async () => {
    await page.goto(`${server.url}/dashboard/#/settings`);
    await page.getByRole("button", { name: "APIキーを発行する" }).click();
    // Signed in with TOTP a moment ago: the step-up is recent, so no code is asked again.
    await page.getByText("本番の決済は、運営者が本番利用の審査項目を承認した後").waitFor();
    expect(await page.locator("code.secret", { hasText: "sk_live_" }).count()).toBe(0);
  });

  it("is issued from the settings page once the operator approved the checklist with the CLI", async () => {
    const approved = await runCli<{ state: string }>(["merchants", "review", "approve", "--id", merchantId], {
      DATABASE_URL: server.databaseUrl,
      MODE: "production",
    });
    expect(approved.state).toBe("complete");
    await page.reload();
    await page.getByRole("button", { name: "APIキーを発行する" }).click();
    await page.locator("code.secret", { hasText: /^sk_live_/ }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
  });
});
