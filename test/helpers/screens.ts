import { mkdirSync } from "node:fs";
import { expect } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { axeViolations } from "./browser.js";

/**
 * The two screens every page is checked at (issue #31): a phone (390×844) and a desktop (1280×800),
 * in Japanese and Japan time, whatever the machine's own locale and zone.
 */
export const screenSizes = [
  ["phone", { width: 390, height: 844 }],
  ["desktop", { width: 1280, height: 800 }],
] as const;

export type ScreenName = (typeof screenSizes)[number][0];

export async function newScreenPage(
  browser: Browser,
  viewport: { width: number; height: number },
): Promise<{ context: BrowserContext; page: Page }> {
  const phone = viewport.width < 600;
  const context = await browser.newContext({
    viewport,
    deviceScaleFactor: 1,
    isMobile: phone,
    hasTouch: phone,
    locale: "ja-JP",
    timezoneId: "Asia/Tokyo",
    acceptDownloads: true,
  });
  return { context, page: await context.newPage() };
}

/** A screenshot under test-results/screens/ (kept as a CI artefact) and no axe-core violation. */
export async function checkScreen(page: Page, name: string): Promise<void> {
  mkdirSync("test-results/screens", { recursive: true });
  await page.screenshot({ path: `test-results/screens/${name}.png`, fullPage: true });
  expect(await axeViolations(page), name).toEqual([]);
}
