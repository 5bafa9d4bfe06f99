import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Above storage the Zengin exchange is records, not rows (docs/architecture.md#storage,
 * domain/zengin-records.ts): no file of flows, api, cli, jobs or ports imports a Zengin table
 * type from storage/schema.ts or reads a column only the Zengin tables have; the Zengin files
 * there read no `merchant_id` either.
 */

const srcDir = resolve(import.meta.dirname, "../../src");
const above = ["flows", "api", "cli", "jobs", "ports"];
const tableTypes = /\bZengin\w*Table\b/;
const zenginColumns =
  /\.(consignor_json|record_count|total_amount|done_count|done_amount|failed_count|failed_amount|due_at|customer_number|new_code|account_key|result_code|debit_day|bank_code|bank_name|branch_code|branch_name|file_id)\b/;

/** Every row read above storage, as "file: what". */
function rowReads(files: readonly { path: string; text: string }[]): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    if (!above.includes(path.split("/")[0])) continue;
    if (tableTypes.test(text)) found.push(`${path}: a Zengin table type`);
    const column = text.match(zenginColumns);
    if (column) found.push(`${path}: ${column[0]}`);
    if (/\/zengin-[^/]*$/.test(path) && /\.merchant_id\b/.test(text)) found.push(`${path}: .merchant_id`);
  }
  return found;
}

describe("Zengin records above storage", () => {
  it("no file above storage reads a Zengin row", () => {
    const files = readdirSync(srcDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
      .map((entry) => {
        const full = join(entry.parentPath, entry.name);
        return { path: relative(srcDir, full), text: readFileSync(full, "utf8") };
      });
    expect(files.some((file) => file.path === "flows/zengin-result-import.ts")).toBe(true);
    expect(rowReads(files)).toEqual([]);
  });

  it("reports each kind of row read (synthetic files)", () => {
    expect(
      rowReads([
        { path: "flows/zengin-cycle.ts", text: 'import type { ZenginFileTable } from "../storage/schema.js";' },
        { path: "api/dashboard-service.ts", text: "recordCount: file.record_count," },
        { path: "ports/zengin-bank.ts", text: "consignor.debitDay; sent.merchant_id" },
        { path: "storage/zengin.ts", text: "row.consignor_json; row.merchant_id" },
        { path: "flows/team.ts", text: "user.merchant_id" },
      ]),
    ).toEqual([
      "flows/zengin-cycle.ts: a Zengin table type",
      "api/dashboard-service.ts: .record_count",
      "ports/zengin-bank.ts: .merchant_id",
    ]);
  });
});
