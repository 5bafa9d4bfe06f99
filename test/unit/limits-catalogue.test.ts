import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { limits } from "../../src/domain/limits.js";

// The catalogue of limits (src/domain/limits.ts) and its table in docs/reference/limits.md#the-catalogue
// say the same: every name, every value, nothing more on either side.

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const doc = readFileSync(resolve(root, "docs/reference/limits.md"), "utf8");
const source = readFileSync(resolve(root, "src/domain/limits.ts"), "utf8");

/** A unit the table writes a value in, as its factor to the catalogue's unit (milliseconds, bytes, counts). */
const unitFactor: Readonly<Record<string, number>> = {
  "": 1,
  ms: 1,
  s: 1000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  bytes: 1,
  MiB: 1024 * 1024,
};

/** "4 MiB", "90 min", "10,000,000" → a number; anything else fails. */
function parseLimitValue(text: string): number {
  const match = /^([\d,]+)(?: (\w+))?$/.exec(text.trim());
  if (!match) throw new Error(`not a limit value: ${text}`);
  const factor = unitFactor[match[2] ?? ""];
  if (factor === undefined) throw new Error(`unknown unit in ${text}`);
  return Number(match[1].replaceAll(",", "")) * factor;
}

/** The rows of the table under "## The catalogue": name, value, why. */
function catalogueTable(): { name: string; value: number; why: string }[] {
  const section = doc.split(/^## The catalogue$/m)[1]?.split(/^## /m)[0];
  if (!section) throw new Error("docs/reference/limits.md has no '## The catalogue' section");
  return section
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => {
      const [name, value, why] = line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim());
      return { name: name.replaceAll("`", ""), value: parseLimitValue(value), why };
    });
}

describe("the limits catalogue", () => {
  it("equals the table in docs/reference/limits.md, in the same order", () => {
    const rows = catalogueTable();
    expect(rows.map((row) => [row.name, row.value])).toEqual(Object.entries(limits));
  });

  it("gives every limit a one-line why, in the code and in the doc", () => {
    for (const row of catalogueTable()) expect(row.why, row.name).not.toBe("");
    for (const name of Object.keys(limits))
      expect(source, name).toMatch(new RegExp(`/\\*\\* [^\\n]+ \\*/\\n\\s+${name}:`));
  });

  it("is frozen and holds only whole, positive numbers", () => {
    expect(Object.isFrozen(limits)).toBe(true);
    for (const [name, value] of Object.entries(limits)) expect(Number.isInteger(value) && value > 0, name).toBe(true);
  });

  it("reads the table's units", () => {
    expect([parseLimitValue("90 min"), parseLimitValue("4 MiB"), parseLimitValue("10,000,000")]).toEqual([
      5_400_000, 4_194_304, 10_000_000,
    ]);
    expect(() => parseLimitValue("5 fortnights")).toThrow("unknown unit");
  });
});
