import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { registerTeardown } from "./teardown.js";

/** Debian's chromium (`apt-get install chromium`); CI installs it in .ci/run. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * One headless chromium per test file: launch in beforeAll, close in afterAll (or, if a hook
 * timed out first, test/helpers/teardown.ts closes it after the file).
 */
export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
  });
  const close = registerTeardown("process", () => browser.close());
  browser.once("disconnected", () => void close());
  return browser;
}

/** A fresh phone-sized context (its own storage: the language choice does not leak between tests). */
export async function newPhonePage(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 1,
    isMobile: true,
    hasTouch: true,
    locale: "ja-JP",
  });
  return { context, page: await context.newPage() };
}

/** The merchant's site: answers every path with a small page and remembers what was asked. */
export interface ShopSite {
  readonly url: string;
  readonly visits: string[];
  close(): Promise<void>;
}

export async function startShopSite(): Promise<ShopSite> {
  const visits: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    visits.push(req.url ?? "/");
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>Shop</title><h1>Back at the shop</h1>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    visits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A fresh desktop-sized context. */
export async function newDesktopPage(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "ja-JP" });
  return { context, page: await context.newPage() };
}

let axeSource: string | undefined;

/** axe-core's violations on the page as it stands (its source evaluated in the page, not fetched). */
export async function axeViolations(page: Page): Promise<string[]> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: { run(): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }> };
      }
    ).axe;
    const result = await axe.run();
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(", ")}`);
  });
  return violations;
}
