import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { insertAuditEntry } from "../../src/storage/audit-log.js";
import { launchBrowser } from "../helpers/browser.js";
import { dashboardPassword, enrolTotp, nextTotpCode, signedInUser } from "../helpers/dashboard.js";
import { checkView as checkLayout } from "../helpers/dashboard-layout.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// The owner's Team and Audit log pages and the invitation link page at a phone's width (390×844)
// and a laptop's (1280×800), in Japanese, in Debian's chromium: no page wider than the screen, no
// header or button broken a character per line, no raw action, role or detail name, axe-core's
// 0 violations, driven by the keyboard. Screenshots under test-results/dashboard-team-widths/.

const shots = "test-results/dashboard-team-widths";
let server: TestServer;
let browser: Browser;
let email = "";
let secret = "";
const chargeId = `ch_${"7".repeat(40)}`;

/** What the Japanese pages must never show: action names, role names, details' keys, JSON. */
const raw =
  /\b(sign_in|refund\.create|user\.\w+|totp\.enrol|api_key\.\w+|DASHBOARD_ROLE_\w+|operator|admin|owner|viewer|refund_id|amount|reason|from|to|step|password|email|command line)\b|[{}]/;

const checkView = (page: Page, width: number, name: string) => checkLayout(page, shots, width, name, raw);

beforeAll(async () => {
  execFileSync(process.execPath, ["scripts/build.mjs", "--if-stale", "web"], { stdio: "inherit" });
  mkdirSync(shots, { recursive: true });
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  const user = await signedInUser(server, { email: "keiko.tanaka.with.a.long.address@example.jp" });
  email = user.email;
  secret = await enrolTotp(server, user);
  // A member beside the owner: their row carries the role select and the reset and remove buttons.
  await signedInUser(server, { email: "ken.yamada.with.a.long.address@example.jp", role: "operator" });
  // Entries whose details a person reads: a refund of a long charge id, a role change, a failed sign-in.
  const actor = {
    merchantId: server.merchant.merchant_id,
    userId: "",
    email,
    clientAddress: "203.0.113.45",
    userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X)",
  };
  const at = server.clock.now();
  for (const change of [
    {
      action: "refund.create",
      target: chargeId,
      details: { refund_id: `re_${"8".repeat(40)}`, amount: 1500, reason: "破損" },
    },
    {
      action: "user.role_change",
      target: randomUUID(),
      details: { email: "ken@example.jp", from: "operator", to: "admin" },
    },
    { action: "sign_in.failed", target: randomUUID(), details: { step: "password" } },
  ] as const) {
    await insertAuditEntry(server.ctx.tx.db, { ...actor, ...change, id: randomUUID(), at });
  }
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

for (const [width, height] of [
  [390, 844],
  [1280, 800],
] as const) {
  describe(`the team, the audit log and the invitation link at ${width}×${height}`, () => {
    const contexts: BrowserContext[] = [];
    let page: Page;
    let link = "";

    const newPage = async () => {
      const context = await browser.newContext({
        viewport: { width, height },
        locale: "ja-JP",
        ...(width < 600 ? { isMobile: true, hasTouch: true } : {}),
      });
      contexts.push(context);
      return context.newPage();
    };

    beforeAll(async () => {
      page = await newPage();
      await page.goto(`${server.url}/dashboard/`);
      await page.getByLabel("メールアドレス", { exact: true }).fill(email);
      await page.getByLabel("パスワード").fill(dashboardPassword);
      await page.getByLabel("パスワード").press("Enter");
      await page.getByLabel("認証アプリのコードまたはリカバリーコード").fill(nextTotpCode(server, secret));
      await page.getByLabel("認証アプリのコードまたはリカバリーコード").press("Enter");
      await page.getByRole("navigation").waitFor();
    });
    afterAll(async () => {
      for (const context of contexts) await context.close();
    });

    it("invites a member with the keyboard, and shows the team and its one-time link within the screen", async () => {
      await page.getByRole("link", { name: "チーム" }).click();
      await page.getByRole("heading", { name: "チーム", exact: true }).waitFor();
      await page.getByLabel("メールアドレス").focus();
      await page.keyboard.type(`member-${width}-with-a-long-address@example.jp`);
      await page.keyboard.press("Enter");
      await expect.poll(() => page.getByTestId("shown-link").count()).toBe(1);
      link = (await page.getByTestId("shown-link").textContent()) ?? "";
      expect(link).toMatch(/\/dashboard\/#\/invitation\/[A-Za-z0-9_-]{43}$/);
      // (At 390 a cell's name also carries its column's name, shown before it.)
      await page.locator("td", { hasText: `member-${width}-with-a-long-address@example.jp` }).waitFor();
      const member = "ken.yamada.with.a.long.address@example.jp";
      expect(await page.getByLabel(`${member} の新しい権限`).inputValue()).toBe("2");
      await page.getByRole("button", { name: `削除: ${member}` }).waitFor();
      await checkView(page, width, "team");
    });

    it("lists the audit log's entries in Japanese and filters them with the keyboard", async () => {
      await page.getByRole("link", { name: "監査ログ" }).click();
      await page.getByRole("heading", { name: "監査ログ" }).waitFor();
      await expect.poll(() => page.locator("td [data-action]").count()).toBeGreaterThanOrEqual(5);
      expect(await page.getByText("オペレーター → 管理者").count()).toBe(1);
      // The users were added by `furikomi users add`: no user acted, the command line did.
      expect(await page.locator("td", { hasText: /^（コマンドライン）$/ }).count()).toBe(2);
      await checkView(page, width, "audit-log");

      await page.getByLabel("操作", { exact: true }).focus();
      await page.getByLabel("操作", { exact: true }).selectOption({ label: "返金" });
      await page.getByRole("button", { name: "絞り込む" }).focus();
      await page.keyboard.press("Enter");
      await expect.poll(() => page.locator("td [data-action]").count()).toBe(1);
      expect(await page.locator("td [data-action]").getAttribute("data-action")).toBe("refund.create");
      expect(await page.getByText(/^返金額: [¥￥]1,500$/).count()).toBe(1);
      await page.getByRole("button", { name: `コピー ${chargeId}` }).waitFor();
      await checkView(page, width, "audit-log-filtered");
    });

    it("opens the invitation link and joins with the keyboard alone", async () => {
      const invitee = await newPage();
      await invitee.goto(link.replace(server.ctx.config.publicBaseUrl, server.url));
      await invitee.getByRole("heading", { name: "Test Shop のダッシュボードへの招待" }).waitFor();
      await checkView(invitee, width, "invitation");
      await invitee.getByLabel("新しいパスワード（12文字以上）").focus();
      await invitee.keyboard.type(dashboardPassword);
      await invitee.keyboard.press("Enter");
      await invitee.getByRole("button", { name: "認証アプリを設定する" }).waitFor();
    });
  });
}
