import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { parse } from "csv-parse/sync";
import { PaymentService } from "../../gen/payments/v1/payment_service_pb.js";
import { SandboxService } from "../../gen/payments/v1/sandbox_service_pb.js";
import { createDashboardUser } from "../../src/flows/dashboard-auth.js";
import { getSupportContact } from "../../src/flows/merchants.js";
import { launchBrowser } from "../helpers/browser.js";
import { dashboardPassword, nextTotpCode, totpCodeAt, wrongTotpCodes } from "../helpers/dashboard.js";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// The merchant dashboard in a real browser (Debian's chromium) against the real server, with the
// background workers running: sign in, enrol TOTP, find a customer, refund, and a CSV batch from
// upload to the downloaded result.

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const email = "operator@example.jp";

beforeAll(async () => {
  execFileSync(process.execPath, ["scripts/build.mjs", "--if-stale", "web"], { stdio: "inherit" });
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  await createDashboardUser(server.ctx, {
    merchantId: server.merchant.merchant_id,
    email,
    password: dashboardPassword,
  });
  context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    locale: "en-GB",
    acceptDownloads: true,
  });
  page = await context.newPage();
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.stop();
});

describe("the dashboard in a browser", () => {
  let secret = "";
  let recoveryCodes: string[] = [];

  it("is served with a strict content security policy and loads nothing from elsewhere", async () => {
    const outside: string[] = [];
    page.on("request", (request) => {
      if (
        !request.url().startsWith(server.url) &&
        !request.url().startsWith("data:") &&
        !request.url().startsWith("blob:")
      )
        outside.push(request.url());
    });
    const response = await page.goto(`${server.url}/dashboard/`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()["content-security-policy"]).toContain("default-src 'self'");
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    expect(outside).toEqual([]);
  });

  it("signs in with the keyboard", async () => {
    await page.getByLabel("E-mail", { exact: true }).focus();
    await page.keyboard.type(email);
    await page.keyboard.press("Tab");
    await page.keyboard.type("wrong password!");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByRole("alert").first().textContent()).toBe("Wrong e-mail or password.");
    await page.getByLabel("Password").fill(dashboardPassword);
    await page.getByLabel("Password").press("Enter");
    await page.getByRole("navigation").waitFor();
    expect(await page.getByText(`Test Shop (${email})`).count()).toBe(1);
  });

  it("enrols TOTP: the QR code and the secret, confirmed with a first code", async () => {
    await page.getByRole("link", { name: "Two-step verification" }).click();
    await page.getByRole("button", { name: "Set up an authenticator app" }).click();
    await page.getByRole("img", { name: "QR code for the authenticator app" }).waitFor();
    secret = (await page.getByTestId("totp-secret").textContent()) ?? "";
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await page.getByLabel("6-digit code").fill(totpCodeAt(secret, server.clock.now()));
    await page.getByRole("button", { name: "Confirm" }).click();
    await page.getByRole("heading", { name: "Recovery codes" }).waitFor();
    recoveryCodes = await page.getByTestId("recovery-codes").getByRole("listitem").allTextContents();
    expect(recoveryCodes).toHaveLength(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[0-9a-f]{4}(-[0-9a-f]{4}){3}$/);
    await page.getByRole("button", { name: "I have saved them" }).click();
    await page.getByText("Two-step verification is on.").first().waitFor();
  });

  it("finds a customer by e-mail and refunds one of their charges", async () => {
    const { customerId } = await seedActiveCustomer(server, { email: "hanako@example.jp" });
    const { chargeId } = await server
      .client(PaymentService)
      .createOffSessionPaymentAsync({ customerId, charge: { price: 3000, description: "Monthly box" } });
    await server.jobs.drain();

    await page.getByRole("link", { name: "Customers" }).click();
    const search = page.getByLabel("Search by e-mail");
    await search.fill("hanako@example.jp");
    await search.press("Enter");
    await page.getByRole("link", { name: "hanako@example.jp" }).click();
    await page.getByRole("heading", { name: "hanako@example.jp" }).waitFor();
    expect(await page.getByRole("cell", { name: "Active" }).count()).toBeGreaterThan(0);
    await page.getByRole("link", { name: chargeId }).click();
    await expect.poll(() => page.getByTestId("charge-status").textContent()).toBe("Succeeded");
    // The amount is bounded by what can be refunded, and confirmed before it is sent.
    const amount = page.getByLabel("Amount to refund (1 to ¥3,000)");
    expect(await amount.inputValue()).toBe("3000");
    await amount.fill("500");
    await page.getByLabel("Reason").fill("damaged");
    await page.getByRole("button", { name: "Refund" }).click();
    const dialog = page.getByRole("dialog", { name: "Please confirm" });
    await dialog.getByText("Refund ¥500? This cannot be undone.").waitFor();
    await dialog.getByRole("button", { name: "Refund" }).click();
    await page.getByText("Refund accepted.").waitFor();
    expect(await page.getByLabel("Amount to refund (1 to ¥2,500)").getAttribute("max")).toBe("2500");
    await expect.poll(() => page.getByTestId("refundable").textContent()).toBe("¥2,500");
    expect(await page.getByRole("cell", { name: "damaged" }).count()).toBe(1);
  });

  it("uploads a CSV batch, confirms it with a code, watches it run and downloads the result", async () => {
    const people = await Promise.all(
      ["aki", "ben", "chika"].map((name) =>
        seedActiveCustomer(server, { email: `${name}@example.jp`, balance: name === "chika" ? 100 : 1_000_000 }),
      ),
    );
    const csv = [
      "customer_email,customer_id,price,description,metadata,idempotency_key",
      "aki@example.jp,,1200,定期便 12月分,plan=gold,",
      `ben@example.jp,${people[1].customerId},2400,Monthly box,,order-ben-1`,
      "chika@example.jp,,1500,Monthly box,,",
      "nobody@example.jp,,1000,Monthly box,,",
      "aki2@example.jp,,12.5,Bad price,,",
      '"=HYPERLINK(""http://evil.example/"")",,1000,Box,,',
    ].join("\r\n");

    await page.getByRole("link", { name: "CSV batches" }).click();
    await page
      .getByLabel("CSV file")
      .setInputFiles({ name: "december.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await page.getByRole("button", { name: "Upload" }).click();
    await page.getByRole("heading", { name: "Confirm with your authenticator code" }).waitFor();
    // nobody@ names no customer: refused in the preview, not counted (issue #31 finding 10).
    expect(await page.getByTestId("valid-rows").textContent()).toBe("3");
    expect(await page.getByTestId("total-to-charge").textContent()).toBe("¥5,100");
    expect(await page.getByRole("cell", { name: "price must be a whole number of yen (digits only)" }).count()).toBe(1);

    await page.getByLabel("6-digit code").fill(nextTotpCode(server, secret));
    await page.getByRole("button", { name: "Confirm and charge" }).click();
    await page.getByRole("dialog").getByText("Charge ¥5,100 to 3 customers?").waitFor();
    await page.getByRole("dialog").getByRole("button", { name: "Confirm and charge" }).click();
    await expect.poll(() => page.getByTestId("batch-status").textContent(), { timeout: 30_000 }).toBe("Completed");
    expect(await page.getByTestId("succeeded").textContent()).toBe("2");
    expect(await page.getByTestId("failed").textContent()).toBe("4");

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download the result CSV" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("december-result.csv");
    const rows = parse(readFileSync((await download.path())!), { bom: true, columns: true }) as Array<
      Record<string, string>
    >;
    expect(rows.map((r) => [r.customer_email, r.description, r.status, r.Reason])).toEqual([
      ["aki@example.jp", "定期便 12月分", "succeeded", ""],
      ["ben@example.jp", "Monthly box", "succeeded", ""],
      ["chika@example.jp", "Monthly box", "failed", "Customer has insufficient funds"],
      ["nobody@example.jp", "Monthly box", "failed", "No customer linked to this email"],
      ["aki2@example.jp", "Bad price", "failed", "price must be a whole number of yen (digits only)"],
      [`'=HYPERLINK("http://evil.example/")`, "Box", "failed", "customer_email is not a valid e-mail address"],
    ]);
    expect(rows.map((r) => r["理由"])).toEqual([
      "",
      "",
      "口座の残高が不足しています",
      "このメールアドレスに紐づく顧客がいません",
      "price は円単位の整数(数字のみ)で書いてください",
      "customer_email がメールアドレスの形式ではありません",
    ]);
    // The failed rows are on the page too, with their reasons.
    await page.getByRole("heading", { name: "Rows that failed" }).waitFor();
    expect(await page.getByRole("cell", { name: "No customer linked to this email" }).count()).toBe(1);
    expect(await page.getByRole("cell", { name: "Customer has insufficient funds" }).count()).toBe(1);
  });

  it("shows a customer's direct-debit mandate with its evidence, and saves the support contact", async () => {
    const email = "mandate@example.jp";
    const created = await server.client(PaymentService).createOnSessionPayment({
      buyer: { email },
      charge: { description: "Monthly plan" },
      redirect: { successUrl: "https://shop.example.jp/ok", failureUrl: "https://shop.example.jp/ng" },
    });
    await server
      .client(SandboxService)
      .completePayment({ paymentLinkUrl: created.paymentLink!.url, bankCode: "9901", accountNumber: "7654567" });

    await page.getByRole("link", { name: "Customers" }).click();
    const search = page.getByLabel("Search by e-mail");
    await search.fill(email);
    await search.press("Enter");
    await page.getByRole("link", { name: email }).click();
    await page.getByRole("heading", { name: `Direct-debit mandate (${created.charge!.contractId})` }).waitFor();
    expect(await page.getByText("Sandbox Daily Window Bank 本店 普通 ****567").count()).toBe(1);
    expect(await page.getByText("Confirmed on the bank's site").count()).toBe(1);
    const exported = page.getByRole("link", { name: "Export the evidence (JSON)" });
    expect(await exported.getAttribute("download")).toBe(`mandate-${created.charge!.contractId}.json`);
    expect(decodeURIComponent((await exported.getAttribute("href")) ?? "")).toContain('"termsVersion"');
    expect(await page.getByText("7654567").count()).toBe(0);

    await page.getByRole("link", { name: "API keys & webhooks" }).click();
    await page.getByLabel("Support e-mail").fill("help@shop.example.jp");
    await page.getByLabel("Support phone").fill("03-1234-5678");
    await page.getByLabel("Support page (https://)").fill("https://shop.example.jp/help");
    await page.getByRole("button", { name: "Save" }).last().click();
    await expect
      .poll(async () => (await getSupportContact(server.ctx, server.merchant.merchant_id)).email)
      .toBe("help@shop.example.jp");
  });

  it("signs in again in two steps, and asks for a code again before creating an API key", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    // Exact: the settings page just left has a "Support e-mail" field until the sign-out renders.
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByLabel("Password").fill(dashboardPassword);
    await page.getByLabel("Password").press("Enter");
    await page.getByRole("heading", { name: "Enter your authenticator code" }).waitFor();
    expect(await page.getByRole("navigation").count()).toBe(0);
    await page.getByLabel("Authenticator or recovery code").fill(wrongTotpCodes(server, secret)[0]);
    await page.getByRole("button", { name: "Verify" }).click();
    await expect
      .poll(() => page.getByRole("alert").first().textContent())
      .toBe("That code is not valid (or was already used). 4 attempts left before a 15-minute lock.");
    await page.getByLabel("Authenticator or recovery code").fill(nextTotpCode(server, secret));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.getByRole("navigation").waitFor();

    // The code at sign-in counts for 5 minutes; after that, a sensitive action asks again.
    server.clock.advance(6 * 60_000);
    await page.getByRole("link", { name: "API keys & webhooks" }).click();
    await page.getByRole("button", { name: "Create an API key" }).click();
    const dialog = page.getByRole("dialog", { name: "Confirm it is you" });
    await dialog.waitFor();
    await dialog.getByLabel("Authenticator or recovery code").fill(recoveryCodes[0]);
    await dialog.getByRole("button", { name: "Verify" }).click();
    await page.getByText("Copy the new key now; it is not shown again:").waitFor();
    expect(await dialog.count()).toBe(0);
  });

  it("switches to Japanese", async () => {
    await page.getByRole("button", { name: "Switch the dashboard to Japanese" }).click();
    await page.getByRole("link", { name: "CSV一括決済" }).click();
    await page.getByRole("heading", { name: "CSVをアップロード" }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe("ja");
    expect(await page.getByRole("cell", { name: "完了" }).count()).toBe(1);
  });
});
