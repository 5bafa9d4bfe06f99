import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { setWebhookUrl } from "../../src/flows/merchants.js";
import { readOperatorMailbox } from "../../src/flows/sandbox.js";
import { axeViolations, launchBrowser, newPhonePage } from "../helpers/browser.js";
import { totpCodeAt } from "../helpers/dashboard.js";
import { createPayment } from "../helpers/on-session.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";

// A merchant signs up in a real browser (Debian's chromium), in Japanese on a phone, keyboard
// first: e-mail, the mailed code, a password and the business's name; the sandbox key and webhook
// secret shown once; TOTP; the first-screen guide. Then, with what the page showed, a sandbox
// payment link is paid and its webhook arrives signed with that secret. Each view is checked with
// axe-core and photographed under test-results/sign-up/.

const shots = "test-results/sign-up";
const email = "owner@coffee.example.jp";
let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let receiver: WebhookReceiver | undefined;
const shown = { apiKey: "", webhookSecret: "" };

async function checkView(name: string): Promise<void> {
  await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
  expect(await axeViolations(page), name).toEqual([]);
}

beforeAll(async () => {
  execFileSync(process.execPath, ["scripts/build.mjs", "--if-stale", "web"], { stdio: "inherit" });
  mkdirSync(shots, { recursive: true });
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  ({ context, page } = await newPhonePage(browser));
});
afterAll(async () => {
  await receiver?.close();
  await context?.close();
  await browser?.close();
  await server?.stop();
});

describe("signing up on the dashboard", () => {
  it("e-mail, code, password and business name: the sandbox key and webhook secret at once", async () => {
    await page.goto(`${server.url}/dashboard/`);
    await page.getByRole("link", { name: "はじめての方は新規登録" }).click();
    await page.getByRole("heading", { name: "新規登録" }).waitFor();
    await checkView("1-email");
    await page.getByLabel("メールアドレス").fill(email);
    await page.getByLabel("メールアドレス").press("Enter");
    await page.getByLabel("確認コード(6桁)").waitFor();
    await server.jobs.drain();
    const [mail] = await readOperatorMailbox(server.ctx, email);
    await page.getByLabel("確認コード(6桁)").fill(mail.code);
    await page.getByLabel("パスワード(12文字以上)").fill("a long enough sign-up password");
    await page.getByLabel("事業者名(お客様に表示されます)").fill("珈琲豆の店");
    await checkView("2-details");
    await page.getByLabel("事業者名(お客様に表示されます)").press("Enter");
    await page.getByRole("heading", { name: "APIキーとWebhook署名シークレット" }).waitFor();
    shown.apiKey = (await page.getByTestId("api-key").textContent()) ?? "";
    shown.webhookSecret = (await page.getByTestId("webhook-secret").textContent()) ?? "";
    expect(shown.apiKey).toMatch(/^sk_test_/);
    expect(shown.webhookSecret).toMatch(/^whsec_/);
    await checkView("3-secrets");
  });

  it("enrols TOTP, then lands on the first-screen guide", async () => {
    await page.getByRole("button", { name: "保存しました。2段階認証の設定へ" }).click();
    await page.getByRole("button", { name: "認証アプリを設定する" }).click();
    const secret = (await page.getByTestId("totp-secret").textContent()) ?? "";
    await page.getByLabel("6桁のコード").fill(totpCodeAt(secret, server.clock.now()));
    await page.getByRole("button", { name: "確認", exact: true }).click();
    await page.getByRole("button", { name: "保存しました", exact: true }).click();
    await page.getByRole("heading", { name: "はじめに" }).waitFor();
    expect(await page.getByRole("listitem").filter({ hasText: "決済リンク" }).count()).toBe(1);
    await checkView("4-guide");
  });

  it("with the key and secret shown: a sandbox payment link is paid and its webhook arrives, verified", async () => {
    const merchantId = (
      await server.ctx.tx.db
        .selectFrom("merchants")
        .select("id")
        .where("name", "=", "珈琲豆の店")
        .executeTakeFirstOrThrow()
    ).id;
    receiver = await startWebhookReceiver(shown.webhookSecret);
    await setWebhookUrl(server.ctx, merchantId, receiver.url);
    const created = await createPayment(
      server,
      { buyer: { email: "taro@example.jp" }, charge: { price: 1200, description: "珈琲豆 200g" } },
      shown.apiKey,
    );
    const paid = await server
      .client(SandboxService, shown.apiKey)
      .completePayment({ paymentLinkUrl: created.paymentLink!.url });
    expect(paid.chargeStatus).toBe(ChargeStatus.SUCCESS);
    await server.jobs.drain();
    await server.webhooks.drain();
    await receiver.waitFor((r) => r.delivered.some((w) => w.event_type === "EVENT_TYPE_CHARGE_SUCCESS"));
    expect(receiver.rejected).toEqual([]);
  });
});
