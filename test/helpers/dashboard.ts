import { ConnectError, createClient, type Client, type Code, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { TOTP, Secret } from "otpauth";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { DashboardService } from "../../gen/payments/v1/dashboard_service_pb.js";
import { createDashboardUser } from "../../src/flows/dashboard-auth.js";
import type { RoleName } from "../../src/domain/dashboard-role.js";
import type { Page } from "playwright-core";
import type { TestServer } from "./test-server.js";

export const dashboardPassword = "correct horse battery staple";

/** A DashboardService client with a cookie jar; it sends x-csrf-token from the CSRF cookie, as the page does. */
export interface DashboardBrowser {
  readonly client: Client<typeof DashboardService>;
  /** name → value, as the server set them. */
  readonly cookies: Map<string, string>;
  /** Raw Set-Cookie values of the last response that set any. */
  lastSetCookie: string[];
  /** Send the CSRF header (default true). */
  sendCsrf: boolean;
}

export function dashboardBrowser(server: TestServer): DashboardBrowser {
  const browser: DashboardBrowser = {
    client: undefined as never,
    cookies: new Map(),
    lastSetCookie: [],
    sendCsrf: true,
  };
  const jar: Interceptor = (next) => async (req) => {
    if (browser.cookies.size > 0)
      req.header.set("cookie", [...browser.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    const csrf = browser.cookies.get("furikomi_csrf");
    if (browser.sendCsrf && csrf) req.header.set("x-csrf-token", csrf);
    const res = await next(req);
    const setCookies = res.header.getSetCookie();
    if (setCookies.length > 0) browser.lastSetCookie = setCookies;
    for (const cookie of setCookies) {
      const [pair] = cookie.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      if (value === "" || /max-age=0/i.test(cookie)) browser.cookies.delete(name);
      else browser.cookies.set(name, value);
    }
    return res;
  };
  const transport = createConnectTransport({ baseUrl: server.url, httpVersion: "1.1", interceptors: [jar] });
  return Object.assign(browser, { client: createClient(DashboardService, transport) });
}

let userCounter = 0;

/** A dashboard user of the merchant (default: the test merchant; an owner unless `role` says otherwise), signed in. */
export async function signedInUser(
  server: TestServer,
  options: { merchantId?: string; email?: string; role?: RoleName } = {},
): Promise<DashboardBrowser & { email: string; userId: string }> {
  const email = options.email ?? `ops${++userCounter}-${Date.now().toString(36)}@example.jp`;
  const { user_id: userId } = await createDashboardUser(server.ctx, {
    merchantId: options.merchantId ?? server.merchant.merchant_id,
    email,
    password: dashboardPassword,
    role: options.role,
  });
  const browser = dashboardBrowser(server);
  await browser.client.signIn({ email, password: dashboardPassword });
  return Object.assign(browser, { email, userId });
}

/** The code an authenticator app shows at `at`. */
export function totpCodeAt(secret: string, at: Date): string {
  return TOTP.generate({
    secret: Secret.fromBase32(secret),
    algorithm: "SHA1",
    digits: 6,
    period: 30,
    timestamp: at.getTime(),
  });
}

/**
 * A fresh code: moves the server's clock to the next 30-second step first, since a code (its
 * time-step) is accepted only once.
 */
export function nextTotpCode(server: TestServer, secret: string): string {
  return totpCodeAt(secret, server.clock.advance(30_000));
}

/** Enrols TOTP for a signed-in user; returns the secret. */
export async function enrolTotp(server: TestServer, browser: DashboardBrowser): Promise<string> {
  const { secret } = await browser.client.beginTotpEnrollment({});
  await browser.client.confirmTotpEnrollment({ code: totpCodeAt(secret, server.clock.now()) });
  return secret;
}

/** How a call was refused: its Connect code, the ErrorInfo reason and the message. */
export async function refusal(
  call: Promise<unknown>,
): Promise<{ code: Code; reason: string | undefined; message: string }> {
  try {
    await call;
  } catch (error) {
    const e = ConnectError.from(error);
    return { code: e.code, reason: e.findDetails(ErrorInfoSchema)[0]?.reason, message: e.rawMessage };
  }
  throw new Error("the call was not refused");
}

/** Signs a user with TOTP in, both steps: the password, then a fresh code (or the code given). */
export async function signedInWithTotp(
  server: TestServer,
  email: string,
  secret: string,
  code = nextTotpCode(server, secret),
): Promise<DashboardBrowser> {
  const browser = dashboardBrowser(server);
  const first = await browser.client.signIn({ email, password: dashboardPassword });
  if (!first.totpRequired) throw new Error("the sign-in asked for no TOTP code");
  await browser.client.completeSignIn({ signInToken: first.signInToken, code });
  return browser;
}

/** `count` codes none of which the server accepts now (the codes of the drift window are left out). */
export function wrongTotpCodes(server: TestServer, secret: string, count = 1): string[] {
  const now = server.clock.now().getTime();
  const valid = new Set([-30_000, 0, 30_000].map((offset) => totpCodeAt(secret, new Date(now + offset))));
  const codes: string[] = [];
  for (let n = 100_000; codes.length < count; n++) if (!valid.has(String(n))) codes.push(String(n));
  return codes;
}

/** Signs a browser page in to the dashboard in Japanese: the password, then the authenticator's code. */
export async function signInOnPage(page: Page, server: TestServer, email: string, secret: string): Promise<void> {
  await page.goto(`${server.url}/dashboard/`);
  await page.getByLabel("メールアドレス", { exact: true }).fill(email);
  await page.getByLabel("パスワード").fill(dashboardPassword);
  await page.getByLabel("パスワード").press("Enter");
  await page.getByLabel("認証アプリのコードまたはリカバリーコード").fill(nextTotpCode(server, secret));
  await page.getByLabel("認証アプリのコードまたはリカバリーコード").press("Enter");
  await page.getByRole("navigation").waitFor();
}
