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

/** A screenshot under test-results/screens/ (kept as a CI artefact), nothing wider than the screen, no axe-core violation. */
export async function checkScreen(page: Page, name: string): Promise<void> {
  mkdirSync("test-results/screens", { recursive: true });
  const width = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  expect(width[0], `${name}: page wider than the screen`).toBeLessThanOrEqual(width[1]);
  await page.screenshot({ path: `test-results/screens/${name}.png`, fullPage: true });
  expect(await axeViolations(page), name).toEqual([]);
}

/**
 * The visible occurrences of these words that the page broke across lines (配信済/み, an e-mail
 * split at …j/p): each occurrence's characters must sit on one line.
 */
export async function brokenWords(page: Page, words: readonly string[]): Promise<string[]> {
  return page.evaluate((targets) => {
    const broken: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? "";
      // Only what is shown: a closed <details> still lays its text out, one character a line.
      if (!node.parentElement?.checkVisibility()) continue;
      for (const word of targets) {
        for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
          const range = document.createRange();
          range.setStart(node, at);
          range.setEnd(node, at + word.length);
          const rects = [...range.getClientRects()].filter((r) => r.width > 0);
          if (rects.length > 0 && new Set(rects.map((r) => Math.round(r.top))).size > 1) broken.push(word);
        }
      }
    }
    return broken;
  }, words);
}

/** Visible text with a half-width bracket against Japanese (全角（）is the one style, issue #31 finding 13). */
export async function halfWidthBrackets(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const japanese =
      /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]\s?\(|\)\s?[\p{Script=Han}\p{Script=Hiragana}]/u;
    const found: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? "";
      if (node.parentElement?.checkVisibility() && japanese.test(text)) found.push(text);
    }
    return found;
  });
}
