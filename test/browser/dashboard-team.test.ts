import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { parse } from "csv-parse/sync";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { axeViolations, launchBrowser } from "../helpers/browser.js";
import { dashboardPassword, enrolTotp, nextTotpCode, signedInUser, totpCodeAt } from "../helpers/dashboard.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// A merchant's team in a real browser (Debian's chromium), in Japanese (the page's first language):
// the owner invites an operator, a viewer and an admin, each accepts their link, sets a password and TOTP,
// and sees only what their role allows (the server refuses the rest); the owner's audit log shows
// what they did. Every new view is checked with axe-core and photographed under
// test-results/dashboard-team/ for a reviewer.

const shots = "test-results/dashboard-team";
let server: TestServer;
let browser: Browser;
const contexts: BrowserContext[] = [];
let owner: Page;
let ownerEmail = "";
let ownerSecret = "";
let chargeId = "";
const links = { operator: "", viewer: "", admin: "" };

async function newPage(): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    locale: "ja-JP",
    acceptDownloads: true,
  });
  contexts.push(context);
  const page = await context.newPage();
  // A confirmation the page asks for (window.confirm) is accepted, as the person would.
  page.on("dialog", (dialog) => void dialog.accept());
  return page;
}

/** No axe violation on the page as it stands, and a screenshot for the reviewer. */
async function checkView(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
  expect(await axeViolations(page), name).toEqual([]);
}

/** A DashboardService call from inside the page, with its cookies and CSRF header: what the server answers. */
async function callFromPage(page: Page, method: string, body: unknown): Promise<{ status: number; text: string }> {
  return page.evaluate(
    async ([method, body]) => {
      const csrf = document.cookie.match(/furikomi_csrf=([^;]+)/)?.[1] ?? "";
      const res = await fetch(`/payments.v1.DashboardService/${method}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": decodeURIComponent(csrf) },
        body: JSON.stringify(body),
      });
      return { status: res.status, text: await res.text() };
    },
    [method, body] as const,
  );
}

/** Opens an invitation link, chooses a password, enrols TOTP: the signed-in page. */
async function joinWith(link: string, name: string): Promise<Page> {
  const page = await newPage();
  await page.goto(link.replace(server.ctx.config.publicBaseUrl, server.url));
  await page.getByRole("heading", { name: "Test Shop のダッシュボードへの招待" }).waitFor();
  await checkView(page, `${name}-1-invitation`);
  await page.getByLabel("新しいパスワード（12文字以上）").fill(dashboardPassword);
  await page.getByRole("button", { name: "パスワードを設定して参加" }).click();
  // Invited users set up two-step verification before anything else.
  await page.getByRole("button", { name: "認証アプリを設定する" }).click();
  const secret = (await page.getByTestId("totp-secret").textContent()) ?? "";
  await page.getByLabel("6桁のコード").fill(totpCodeAt(secret, server.clock.now()));
  await page.getByRole("button", { name: "確認", exact: true }).click();
  await page.getByRole("button", { name: "保存しました" }).click();
  await page.getByRole("navigation").waitFor();
  return page;
}

const navLinks = async (page: Page) => page.getByRole("navigation").getByRole("link").allTextContents();

beforeAll(async () => {
  execFileSync(process.execPath, ["scripts/build.mjs", "--if-stale", "web"], { stdio: "inherit" });
  mkdirSync(shots, { recursive: true });
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  const user = await signedInUser(server, { email: "owner@example.jp" });
  ownerEmail = user.email;
  ownerSecret = await enrolTotp(server, user);
  const { customerId } = await seedActiveCustomer(server, { email: "hanako@example.jp" });
  const paid = await server
    .client(PaymentService)
    .createOffSessionPayment({ customerId, charge: { price: 3000, description: "定期便" } });
  chargeId = paid.charge!.chargeId;
  owner = await newPage();
});
afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await server?.stop();
});

describe("a merchant's team in the dashboard", () => {
  it("the owner signs in and invites an operator, a viewer and an admin: each link is shown once", async () => {
    await owner.goto(`${server.url}/dashboard/`);
    await owner.getByLabel("メールアドレス").fill(ownerEmail);
    await owner.getByLabel("パスワード").fill(dashboardPassword);
    await owner.getByLabel("パスワード").press("Enter");
    await owner.getByLabel("認証アプリのコードまたはリカバリーコード").fill(nextTotpCode(server, ownerSecret));
    await owner.getByLabel("認証アプリのコードまたはリカバリーコード").press("Enter");
    await owner.getByRole("navigation").waitFor();
    expect(await owner.getByTestId("role").textContent()).toContain("オーナー");

    await owner.getByRole("link", { name: "チーム" }).click();
    await owner.getByRole("heading", { name: "チーム", exact: true }).waitFor();
    for (const [role, label] of [
      ["operator", "オペレーター"],
      ["viewer", "閲覧者"],
      ["admin", "管理者"],
    ] as const) {
      await owner.getByLabel("メールアドレス").fill(`${role}@example.jp`);
      await owner.getByLabel("権限", { exact: true }).selectOption({ label });
      await owner.getByRole("button", { name: "招待する" }).click();
      // Each invitation shows its own link, in place of the one before.
      await expect
        .poll(async () => (await owner.getByTestId("shown-link").allTextContents()).join())
        .toMatch(/\/dashboard\/#\/invitation\/[A-Za-z0-9_-]{43}$/);
      const before = [links.operator, links.viewer];
      await expect
        .poll(async () => before.includes((await owner.getByTestId("shown-link").textContent()) ?? ""))
        .toBe(false);
      links[role] = (await owner.getByTestId("shown-link").textContent()) ?? "";
      await owner.getByRole("cell", { name: `${role}@example.jp`, exact: true }).waitFor();
    }
    expect(new Set(Object.values(links)).size).toBe(3);
    await checkView(owner, "owner-1-team");
  });

  it("the operator joins, refunds, and is refused the owner's and admin's pages by the server", async () => {
    const page = await joinWith(links.operator, "operator");
    expect(await page.getByTestId("role").textContent()).toContain("オペレーター");
    const nav = await navLinks(page);
    expect(nav).toContain("決済");
    expect(nav).not.toContain("チーム");
    expect(nav).not.toContain("監査ログ");
    expect(nav).not.toContain("APIキーとWebhook");

    await page.goto(`${server.url}/dashboard/#/charges/${chargeId}`);
    await page.getByLabel(/^返金額（1円〜/).fill("500");
    await page.getByLabel("理由").fill("破損");
    await page.getByRole("button", { name: "返金する" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "返金する" }).click();
    await page.getByText("返金を受け付けました。").first().waitFor();
    await checkView(page, "operator-2-charge");

    await page.goto(`${server.url}/dashboard/#/settings`);
    await page.getByText("この操作を行う権限がありません。").waitFor();
    const keys = await callFromPage(page, "ListApiKeys", {});
    expect([keys.status, keys.text]).toEqual([403, expect.stringContaining("ROLE_FORBIDDEN")]);
    const team = await callFromPage(page, "InviteTeamMember", { email: "x@example.jp", role: "DASHBOARD_ROLE_OWNER" });
    expect(team.status).toBe(403);
  });

  it("the viewer joins, reads charges without a refund form, and the server refuses a refund", async () => {
    const page = await joinWith(links.viewer, "viewer");
    expect(await page.getByTestId("role").textContent()).toContain("閲覧者");
    expect(await navLinks(page)).not.toContain("サンドボックス");
    await page.goto(`${server.url}/dashboard/#/charges/${chargeId}`);
    await page.getByTestId("refundable").waitFor();
    expect(await page.getByRole("button", { name: "返金する" }).count()).toBe(0);
    await checkView(page, "viewer-2-charge");
    const refund = await callFromPage(page, "RefundCharge", { refund: { chargeId, amount: 100 } });
    expect([refund.status, refund.text]).toEqual([403, expect.stringContaining("ROLE_FORBIDDEN")]);
    const log = await callFromPage(page, "ListAuditLog", {});
    expect(log.status).toBe(403);
  });

  it("the admin joins, manages API keys and reads the audit log, but not the team", async () => {
    const page = await joinWith(links.admin, "admin");
    const nav = await navLinks(page);
    expect(nav).toEqual(expect.arrayContaining(["APIキーとWebhook", "監査ログ"]));
    expect(nav).not.toContain("チーム");
    await page.getByRole("link", { name: "APIキーとWebhook" }).click();
    await page.getByRole("button", { name: "APIキーを発行する" }).click();
    await page.getByText("新しいキーを今コピーしてください").waitFor();
    await page.getByRole("link", { name: "監査ログ" }).click();
    await page.getByRole("heading", { name: "監査ログ" }).waitFor();
    await checkView(page, "admin-2-audit-log");
    const team = await callFromPage(page, "ListTeamMembers", {});
    expect([team.status, team.text]).toEqual([403, expect.stringContaining("ROLE_FORBIDDEN")]);
  });

  it("the owner's audit log shows what each did, filters, and exports them as CSV", async () => {
    await owner.getByRole("link", { name: "監査ログ" }).click();
    await owner.getByRole("heading", { name: "監査ログ" }).waitFor();
    await owner.getByLabel("ユーザー（メールアドレス）").fill("operator@example.jp");
    await owner.getByRole("button", { name: "絞り込む" }).click();
    const actions = () =>
      owner.locator("td [data-action]").evaluateAll((cells) => cells.map((cell) => cell.getAttribute("data-action")));
    // The page first lists everyone's entries; the filtered list replaces them.
    await expect.poll(actions).toEqual(["refund.create", "totp.enrol", "sign_in", "user.join"]);
    expect(await owner.getByRole("cell", { name: "返金", exact: true }).count()).toBe(1);
    expect(await owner.getByRole("cell", { name: chargeId }).count()).toBe(1);
    await checkView(owner, "owner-2-audit-log");

    await owner.getByLabel("ユーザー（メールアドレス）").fill("");
    await owner.getByLabel("操作", { exact: true }).selectOption({ label: "メンバー招待" });
    await owner.getByRole("button", { name: "絞り込む" }).click();
    await expect.poll(() => owner.locator("td [data-action]").count()).toBe(3);

    await owner.getByLabel("操作", { exact: true }).selectOption({ label: "すべて" });
    const [download] = await Promise.all([
      owner.waitForEvent("download"),
      owner.getByRole("button", { name: "CSVでエクスポート" }).click(),
    ]);
    const rows = parse(readFileSync((await download.path())!), { bom: true, columns: true }) as Array<
      Record<string, string>
    >;
    const did = (email: string) => rows.filter((r) => r.email === email).map((r) => r.action);
    expect(did("operator@example.jp")).toEqual(["refund.create", "totp.enrol", "sign_in", "user.join"]);
    expect(did("viewer@example.jp")).toEqual(["totp.enrol", "sign_in", "user.join"]);
    expect(did("admin@example.jp")).toEqual(["api_key.create", "totp.enrol", "sign_in", "user.join"]);
    expect(did(ownerEmail)).toEqual(expect.arrayContaining(["user.invite", "user.invite", "sign_in"]));
    expect(rows.find((r) => r.action === "refund.create")?.target).toBe(chargeId);

    await owner.getByRole("button", { name: "ダッシュボードを英語で表示する" }).click();
    await owner.getByRole("heading", { name: "Audit log" }).waitFor();
    await checkView(owner, "owner-3-audit-log-en");
  });
});
