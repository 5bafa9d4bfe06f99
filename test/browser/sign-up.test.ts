import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { ChargeStatus } from "../../gen/payments/v1/enums_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { setWebhookUrl } from "../../src/flows/merchants.js";
import { addContract } from "../../src/flows/zengin-contracts.js";
import { runCli } from "../helpers/process-server.js";
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
    await page.getByLabel("確認コード（6桁）").waitFor();
    await server.jobs.drain();
    const [mail] = await readOperatorMailbox(server.ctx, email);
    await page.getByLabel("確認コード（6桁）").fill(mail.code);
    await page.getByLabel("パスワード（12文字以上）").fill("a long enough sign-up password");
    await page.getByLabel("事業者名（お客様に表示されます）").fill("珈琲豆の店");
    await checkView("2-details");
    await page.getByLabel("事業者名（お客様に表示されます）").press("Enter");
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

  it("fills the going-live checklist, each item saved as it is done, and submits it; the operator approves it with the CLI", async () => {
    const merchantId = (
      await server.ctx.tx.db
        .selectFrom("merchants")
        .select("id")
        .where("name", "=", "珈琲豆の店")
        .executeTakeFirstOrThrow()
    ).id;
    await page.goto(`${server.url}/dashboard/#/start`);
    await page.getByRole("link", { name: "本番利用の申請へ" }).click();
    await page.getByRole("heading", { name: "本番利用の申請" }).waitFor();
    await checkView("5-checklist");
    await page.getByLabel("法人番号（13桁）").fill("5011001098993");
    await page.getByLabel("商号", { exact: true }).fill("株式会社珈琲豆");
    await page.getByLabel("商号（フリガナ・全角カタカナ）").fill("カブシキガイシャコーヒーマメ");
    await page.getByLabel("所在地").fill("東京都渋谷区渋谷1-2-3");
    await page.getByLabel("代表者").fill("山田 太郎");
    await page.getByLabel("電話番号").fill("03-1234-5678");
    await page.getByRole("button", { name: "事業者情報を保存" }).click();
    await page.getByText("法人番号が正しくありません").waitFor();
    await page.getByLabel("法人番号（13桁）").fill("4011001098993");
    // A 法人's インボイス登録番号 is T and its 法人番号: another number is refused, in words.
    await page.getByLabel(/^インボイス登録番号/).fill("T4011001098994");
    await page.getByRole("button", { name: "事業者情報を保存" }).click();
    await page.getByText("インボイス登録番号は T と13桁の数字で入力してください").waitFor();
    await checkView("5-invoice-number-refused");
    await page.getByLabel(/^インボイス登録番号/).fill("t4011001098993");
    await page.getByRole("button", { name: "事業者情報を保存" }).click();
    await page.getByTestId("item-business").getByText("完了").waitFor();

    await page.getByRole("button", { name: "テストイベントを送る" }).click();
    await page.getByText("テストイベントを送りました").waitFor();
    await server.webhooks.drain();
    await page.getByRole("button", { name: /^利用規約（.*版）に同意する$/ }).click();
    await page.getByTestId("item-terms").getByText("完了").waitFor();
    // The webhook item, delivered meanwhile, shows done after the terms' answer.
    await page.getByTestId("item-webhook").getByText("完了").waitFor();

    await addContract(server.ctx, merchantId, {
      name: "ｺｰﾋｰﾏﾒ",
      branchCode: "001",
      accountType: "1",
      accountNumber: "1234567",
      scope: "agent",
      code: "7000000002",
      bankCode: "0001",
    });
    await page.reload();
    await page.getByRole("button", { name: "審査を申請する" }).click();
    await page.getByText("運営者が審査中です。").waitFor();
    await checkView("6-in-review");

    const approved = await runCli<{ state: string }>(["merchants", "review", "approve", "--id", merchantId], {
      DATABASE_URL: server.databaseUrl,
    });
    expect(approved.state).toBe("complete");
    await page.reload();
    await page.getByText("承認済みです。").waitFor();
    await checkView("7-approved");
  });
});
