import { expect } from "vitest";
import type { Page } from "playwright-core";
import { axeViolations } from "./browser.js";

/**
 * The checks every dashboard view passes at every width (issue 21): a full-page screenshot at
 * `${shots}/${width}-${name}.png`, no page wider than the screen, at 1280 px no header, button or
 * menu link broken a character per line, no `raw` name in the main text, and axe-core's 0 violations.
 */
export async function checkView(page: Page, shots: string, width: number, name: string, raw: RegExp): Promise<void> {
  await page.waitForLoadState("networkidle");
  await page.screenshot({ path: `${shots}/${width}-${name}.png`, fullPage: true });
  const layout = await page.evaluate(() => {
    const lines = (element: Element) => {
      const range = document.createRange();
      range.selectNodeContents(element);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    };
    return {
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      broken: [...document.querySelectorAll("th, button, nav a")]
        .filter((e) => (e as HTMLElement).offsetParent !== null && lines(e) > 1)
        .map((e) => e.textContent),
      text: (document.querySelector("main") as HTMLElement).innerText,
    };
  });
  expect(layout.scrollWidth, `${name} at ${width}`).toBeLessThanOrEqual(layout.innerWidth);
  if (width >= 1280) expect(layout.broken, `${name}: wrapped headers or buttons`).toEqual([]);
  expect(layout.text, `${name}: raw names`).not.toMatch(raw);
  const violations = await axeViolations(page);
  expect(violations, `${name} at ${width}: ${violations.join(" | ")}`).toEqual([]);
}
