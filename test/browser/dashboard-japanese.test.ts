import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { parse } from "csv-parse/sync";
import { ChargeStatus, DeliveryStatus, ErrorType, EventType } from "../../gen/payments/v1/enums_pb.js";
import { limits } from "../../src/domain/limits.js";
import { recordEvents } from "../../src/storage/events.js";
import { launchBrowser } from "../helpers/browser.js";
import { chargeRow, seedCharge } from "../helpers/charges.js";
import { checkView as checkLayout } from "../helpers/dashboard-layout.js";
import { dashboardPassword, enrolTotp, nextTotpCode, signedInUser } from "../helpers/dashboard.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// The dashboard in Japanese at a phone's width (390×844) and a laptop's (1280×800), in Debian's
// chromium against the real server: every view this issue changed, searched and filtered, with no
// page wider than the screen, no raw enum name, no header or button broken a character per line,
// and axe-core's 0 violations; the charges export and a CSV batch's preview, confirmation and
// failed rows. Screenshots of each view under test-results/dashboard-japanese/.

const shots = "test-results/dashboard-japanese";
let server: TestServer;
let browser: Browser;
let email = "";
let secret = "";
const ids: Record<string, string> = {};

beforeAll(async () => {
  execFileSync(process.execPath, ["scripts/build.mjs", "--if-stale", "web"], { stdio: "inherit" });
  mkdirSync(shots, { recursive: true });
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  const user = await signedInUser(server);
  email = user.email;
  secret = await enrolTotp(server, user);
  const merchantId = server.merchant.merchant_id;
  ids.hanako = (
    await seedActiveCustomer(server, {
      email: "hanako.sato.with.a.rather.long.address@example.jp",
      name: "佐藤 花子",
      kana: ["サトウ", "ハナコ"],
    })
  ).customerId;
  ids.kenta = (
    await seedActiveCustomer(server, { email: "kenta@example.jp", name: "山田 健太", kana: ["ヤマダ", "ケンタ"] })
  ).customerId;
  ids.paid = await seedCharge(server, {
    merchantId,
    customerId: ids.hanako,
    amount: 4800,
    description: "定期便 12月分",
  });
  ids.failed = await seedCharge(server, {
    merchantId,
    customerId: ids.kenta,
    amount: 2600,
    description: "定期便 12月分",
    status: ChargeStatus.FAILURE,
    failure: { errorType: ErrorType.PAYMENT_CHARGE_INSUFFICIENT_FUNDS, message: "Customer has insufficient funds" },
  });
  // 55 small charges: more than one page of the charges list.
  await server.ctx.tx.write((trx) =>
    trx
      .insertInto("charges")
      .values(Array.from({ length: 55 }, () => chargeRow({ merchantId, amount: 500 }, server.clock.now())))
      .execute(),
  );
  await server.ctx.tx.write((trx) =>
    recordEvents(trx, [
      {
        merchantId,
        type: EventType.CHARGE_SUCCESS,
        chargeId: ids.paid,
        content: { event_type: "EVENT_TYPE_CHARGE_SUCCESS", charge_id: ids.paid },
        now: server.clock.now(),
      },
      {
        merchantId,
        type: EventType.TEST_CHARGE_FAIL,
        chargeId: ids.failed,
        content: { event_type: "charge.fail", charge_id: ids.failed },
        now: server.clock.now(),
      },
    ]),
  );
  await server.ctx.tx.write((trx) =>
    trx
      .updateTable("events")
      .set({ delivery_status: DeliveryStatus.FAILED })
      .where("charge_id", "=", ids.failed)
      .execute(),
  );
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** What the Japanese page must never show: enum names and English server texts. */
const raw =
  /\b(AUTHORIZED|NOT_AUTHORIZED|NOT_SUBMITTED|ACTIVATED|SUCCESS|FAILURE|PENDING|DELIVERED|BANK_REDIRECT|EVENT_TYPE_\w+)\b|charge\.fail|insufficient funds|No customer linked/;

async function signIn(page: Page): Promise<void> {
  await page.goto(`${server.url}/dashboard/`);
  await page.getByLabel("メールアドレス", { exact: true }).fill(email);
  await page.getByLabel("パスワード").fill(dashboardPassword);
  await page.getByLabel("パスワード").press("Enter");
  await page.getByLabel("認証アプリのコードまたはリカバリーコード").fill(nextTotpCode(server, secret));
  await page.getByLabel("認証アプリのコードまたはリカバリーコード").press("Enter");
  await page.getByRole("navigation").waitFor();
}

/** The shared checks (test/helpers/dashboard-layout.ts) with this file's screenshots and raw names. */
const checkView = (page: Page, width: number, name: string) => checkLayout(page, shots, width, name, raw);

for (const [width, height] of [
  [390, 844],
  [1280, 800],
] as const) {
  describe(`the dashboard in Japanese at ${width}×${height}`, () => {
    let context: BrowserContext;
    let page: Page;

    beforeAll(async () => {
      context = await browser.newContext({
        viewport: { width, height },
        locale: "ja-JP",
        acceptDownloads: true,
        ...(width < 600 ? { isMobile: true, hasTouch: true } : {}),
      });
      page = await context.newPage();
      await signIn(page);
    });
    afterAll(async () => context?.close());

    it("finds customers by kana and by the start of the e-mail, and says when nothing matched", async () => {
      await page.getByRole("link", { name: "顧客" }).click();
      await page.getByLabel("氏名またはフリガナ").fill("さとう");
      await page.getByRole("button", { name: "検索" }).click();
      await page.waitForURL(/#\/customers\?name=/);
      await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
      await page.getByRole("link", { name: "hanako.sato.with.a.rather.long.address@example.jp" }).waitFor();
      expect(await page.getByText("サトウ ハナコ").count()).toBe(1);
      expect(await page.getByRole("link", { name: "kenta@example.jp" }).count()).toBe(0);
      expect(await page.getByText("口座振替可").count()).toBeGreaterThan(0);
      await checkView(page, width, "customers-search");

      await page.getByLabel("氏名またはフリガナ").fill("");
      await page.getByLabel("メールアドレスで検索").fill("nobody");
      await page.getByRole("button", { name: "検索" }).click();
      await page.getByText("条件に一致するものはありません。").waitFor();
    });

    it("shows a customer with their statuses, contract and failed charge in Japanese", async () => {
      await page.goto(`${server.url}/dashboard/#/customers/${ids.kenta}`);
      await page.getByRole("heading", { name: "kenta@example.jp" }).waitFor();
      expect(await page.getByText("口座の残高が不足しています").count()).toBe(1);
      expect(await page.getByText("ERROR_TYPE_PAYMENT_CHARGE_INSUFFICIENT_FUNDS").count()).toBe(1);
      expect(await page.locator("#charges-truncated").count()).toBe(0);
      expect(await page.getByRole("cell", { name: "有効" }).count()).toBeGreaterThan(0);
      await checkView(page, width, "customer");
    });

    it("filters charges, shows who paid, and exports the filtered list as CSV", async () => {
      await page.getByRole("navigation").getByRole("link", { name: "決済", exact: true }).click();
      await page.getByLabel("ステータス").selectOption({ label: "失敗" });
      await page.getByLabel("金額（円以上）").fill("1000");
      await page.getByRole("button", { name: "絞り込む" }).click();
      await page.waitForURL(/#\/charges\?status=/);
      await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
      await page.getByRole("link", { name: ids.failed }).waitFor();
      expect(await page.getByRole("link", { name: ids.paid }).count()).toBe(0);
      expect(await page.getByText("ヤマダ ケンタ").count()).toBe(1);
      await checkView(page, width, "charges-filtered");

      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("button", { name: "この一覧をCSVで書き出す" }).click(),
      ]);
      const rows = parse(readFileSync((await download.path())!), { bom: true, columns: true }) as Array<
        Record<string, string>
      >;
      expect(rows.map((r) => [r.決済ID, r.メールアドレス, r.氏名])).toEqual([
        [ids.failed, "kenta@example.jp", "山田 健太"],
      ]);

      await page.getByLabel("顧客のメールアドレス（先頭）").fill("nobody");
      await page.getByRole("button", { name: "絞り込む" }).click();
      await page.getByText("条件に一致するものはありません。").waitFor();
    });

    it("pages through the filtered charges with the More button", async () => {
      await page.goto(`${server.url}/dashboard/#/charges?max=600`);
      await expect.poll(() => page.locator("tbody tr").count()).toBe(50);
      await page.getByRole("button", { name: "さらに表示" }).click();
      await expect.poll(() => page.locator("tbody tr").count()).toBe(55);
      expect(await page.getByRole("button", { name: "さらに表示" }).isHidden()).toBe(true);
      expect(await page.locator("table").count()).toBe(1);
    });

    it("refunds part of a charge only after confirming the amount, bounded by what remains", async () => {
      await page.goto(`${server.url}/dashboard/#/charges/${ids.paid}`);
      const amount = page.getByLabel(/^返金額（1円〜/);
      await amount.waitFor();
      expect(await page.getByTestId("charge-status").textContent()).toMatch(
        /^(成功|取消済み|全額返金|一部返金|返金処理中)$/,
      );
      await checkView(page, width, "charge");
      const refundable = Number(await amount.inputValue());
      expect(await amount.getAttribute("max")).toBe(String(refundable));
      await amount.fill("100");
      await page.getByRole("button", { name: "返金する" }).click();
      const dialog = page.getByRole("dialog");
      await dialog.getByText(/[¥￥]100を返金します/).waitFor();
      await checkView(page, width, "refund-confirm");
      await dialog.getByRole("button", { name: "返金する" }).click();
      await page.getByText("返金を受け付けました。").waitFor();
      await expect
        .poll(async () => page.getByLabel(/^返金額（1円〜/).getAttribute("max"))
        .toBe(String(refundable - 100));
    });

    it("filters webhook events by delivery state and shows the payload and its attempts", async () => {
      await page.getByRole("link", { name: "Webhookイベント" }).click();
      await page.getByLabel("配信", { exact: true }).selectOption({ label: "配信失敗" });
      await page.getByRole("button", { name: "絞り込む" }).click();
      await page.waitForURL(/#\/events\?delivery=/);
      await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
      await page.getByRole("cell", { name: "テスト: 決済失敗" }).waitFor();
      expect(await page.getByRole("cell", { name: "決済成功" }).count()).toBe(0);
      await checkView(page, width, "events-filtered");
      await page.locator("summary", { hasText: "ペイロード" }).first().click();
      await page.getByText(`"charge_id": "${ids.failed}"`).waitFor();
    });

    it("previews a CSV batch: rows to charge, the total in yen and the rejected rows with Japanese reasons", async () => {
      const csv = [
        "customer_email,customer_id,price,description,metadata",
        "kenta@example.jp,,1200,定期便,",
        `hanako.sato.with.a.rather.long.address@example.jp,,3400,定期便,`,
        "nobody@example.jp,,1000,定期便,",
        ",,12.5,定期便,",
      ].join("\r\n");
      await page.getByRole("link", { name: "CSV一括決済" }).click();
      const [template] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("button", { name: "CSVテンプレート（見出し行）をダウンロード" }).click(),
      ]);
      expect(readFileSync((await template.path())!, "utf8")).toBe(
        "\uFEFFcustomer_email,customer_id,price,description,metadata,idempotency_key\r\n",
      );
      await page.getByLabel("CSVファイル").setInputFiles({
        name: `batch-${width}.csv`,
        mimeType: "text/csv",
        buffer: Buffer.from(csv),
      });
      await page.getByRole("button", { name: "アップロード" }).click();
      await page.getByRole("heading", { name: "請求前の確認" }).waitFor();
      // The row for an e-mail no customer has is refused now, not counted in the total (issue #31 finding 10).
      expect(await page.getByTestId("total-to-charge").textContent()).toMatch(/[¥￥]4,600/);
      expect(await page.getByTestId("invalid-rows").textContent()).toBe("2");
      expect(await page.getByText("このメールアドレスに紐づく顧客がいません").count()).toBe(1);
      expect(
        await page.getByText("customer_email が空です。price は円単位の整数(数字のみ)で書いてください").count(),
      ).toBe(1);
      await checkView(page, width, "batch-preview");

      if (width < 1280) return;
      await page.getByLabel("6桁のコード").fill(nextTotpCode(server, secret));
      await page.getByRole("button", { name: "確定して請求する" }).click();
      const dialog = page.getByRole("dialog");
      await dialog.getByText(/2件、合計[¥￥]4,600を請求します/).waitFor();
      await dialog.getByRole("button", { name: "確定して請求する" }).click();
      await expect.poll(() => page.getByTestId("batch-status").textContent(), { timeout: 30_000 }).toBe("完了");
      await page.getByRole("heading", { name: "失敗した行" }).waitFor();
      await page.getByText("このメールアドレスに紐づく顧客がいません").waitFor();
      await checkView(page, width, "batch-finished");
    });

    it("shows the bank files and the settings within the screen, in Japanese", async () => {
      await page.getByRole("link", { name: "口座振替ファイル" }).click();
      await page.getByRole("heading", { name: "口座振替ファイル" }).waitFor();
      await checkView(page, width, "zengin");
      await page.getByRole("link", { name: "APIキーとWebhook" }).click();
      await page.getByRole("heading", { name: "APIキー" }).first().waitFor();
      await checkView(page, width, "settings");
    });

    it("switches to English and back, with the same words from the enums", async () => {
      await page.goto(`${server.url}/dashboard/#/charges?status=${ChargeStatus.FAILURE}`);
      await page.getByRole("link", { name: ids.failed }).waitFor();
      await page.getByRole("button", { name: /^English/ }).click();
      await page.getByRole("button", { name: "Export these charges (CSV)" }).waitFor();
      await page.screenshot({ path: `${shots}/${width}-charges-english.png`, fullPage: true });
      // (At 390 a cell's name also carries its column's name, shown before it.)
      expect(await page.locator("td").getByText("Failed", { exact: true }).count()).toBe(1);
      expect(await page.getByText("Customer has insufficient funds").count()).toBe(1);
      await page.getByRole("button", { name: /^日本語/ }).click();
      await page.getByRole("button", { name: "この一覧をCSVで書き出す" }).waitFor();
      expect(await page.locator("td").getByText("失敗", { exact: true }).count()).toBe(1);
    });

    it("filters, exports and cancels a refund with the keyboard alone", async () => {
      await page.goto(`${server.url}/dashboard/#/charges`);
      await page.getByLabel("金額（円以上）").focus();
      await page.keyboard.type("4000");
      await page.keyboard.press("Enter");
      await page.waitForURL(/min=4000/);
      await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
      await page.getByRole("button", { name: "この一覧をCSVで書き出す" }).focus();
      const [download] = await Promise.all([page.waitForEvent("download"), page.keyboard.press("Enter")]);
      expect(readFileSync((await download.path())!, "utf8")).toContain(ids.paid);

      await page.goto(`${server.url}/dashboard/#/charges/${ids.paid}`);
      const amount = page.getByLabel(/^返金額（1円〜/);
      const before = await amount.getAttribute("max");
      await amount.focus();
      await page.keyboard.press("Enter");
      const dialog = page.getByRole("dialog");
      await dialog.waitFor();
      // The focus starts on Cancel, so an unintended Enter refunds nothing; Escape closes.
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("キャンセル");
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      expect(await page.getByLabel(/^返金額（1円〜/).getAttribute("max")).toBe(before);
    });

    it("says how many codes are left when a step-up code is wrong", async () => {
      server.clock.advance(6 * 60_000);
      await page.getByRole("link", { name: "APIキーとWebhook" }).click();
      await page.getByRole("button", { name: "APIキーを発行する" }).click();
      const dialog = page.getByRole("dialog", { name: "本人確認" });
      await dialog.getByLabel("認証アプリのコードまたはリカバリーコード").fill("000000");
      await dialog.getByRole("button", { name: "確認する" }).click();
      await dialog.getByText(/あと\d回間違えると15分間ロックされます。/).waitFor();
      await checkView(page, width, "step-up-wrong-code");
      await dialog.getByRole("button", { name: "キャンセル" }).click();
    });
  });
}

// Last: its charges would change the pages the views above count.
describe("a customer with more charges than their page shows", () => {
  it("says in Japanese that only the most recent ones are shown, with the number from the catalogue", async () => {
    const merchantId = server.merchant.merchant_id;
    const { customerId } = await seedActiveCustomer(server, { email: "many@example.jp" });
    const rows = Array.from({ length: limits.customerDetailChargesMax + 1 }, () =>
      chargeRow({ merchantId, customerId, amount: 700 }, server.clock.now()),
    );
    await server.ctx.tx.write((trx) => trx.insertInto("charges").values(rows).execute());
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: "ja-JP" });
    try {
      const page = await context.newPage();
      await signIn(page);
      await page.goto(`${server.url}/dashboard/#/customers/${customerId}`);
      await page.getByRole("heading", { name: "many@example.jp" }).waitFor();
      const notice = page.locator("#charges-truncated");
      await notice.waitFor();
      expect(await notice.textContent()).toContain(
        `最新の${limits.customerDetailChargesMax}件の決済のみ表示しています`,
      );
    } finally {
      await context.close();
    }
  });
});
