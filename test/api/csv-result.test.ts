import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { seedActiveCustomer } from "../helpers/fixtures.js";
import { enrolTotp, nextTotpCode, signedInUser, type DashboardBrowser } from "../helpers/dashboard.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

let server: TestServer;
let ops: DashboardBrowser;
let secret: string;

beforeAll(async () => {
  server = await startTestServer({ env: { WORKERS: "off" } });
  ops = await signedInUser(server);
  secret = await enrolTotp(server, ops);
});
afterAll(async () => server?.stop());

const header = ["customer_email", "customer_id", "price", "description", "metadata", "idempotency_key"];

/** Cells a spreadsheet would split into rows or run as formulas, each in a description and in an e-mail cell. */
const hostile = [
  "x\n=cmd|' /C calc'!A0",
  "x\r=1+1",
  "x\r\n@SUM(A1)",
  "\n-2+3",
  "a,b",
  'say "hi"',
  " =SUM(A1:A9)",
  "\t+1",
  "\u3000=1",
  "＝1+1",
  "＋81 3",
  "－5",
  "＠home",
  '=HYPERLINK("http://evil.example/")',
];

/** Upload, confirm, run the jobs, download the result's text. */
async function resultOf(content: Buffer): Promise<string> {
  const batch = await ops.client.uploadCsvBatch({ fileName: "batch.csv", content });
  await ops.client.confirmCsvBatch({
    batchId: batch.batchId,
    challengeId: batch.challengeId,
    code: nextTotpCode(server, secret),
  });
  await server.jobs.drain();
  const { content: result } = await ops.client.downloadCsvBatchResult({ batchId: batch.batchId });
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(result);
}

/** Every row has the header's width, and no cell starts (trimmed) with a formula character. */
function expectSafe(text: string, width: number): string[][] {
  const rows = parse(text, { bom: true, relax_column_count: true }) as string[][];
  for (const row of rows) expect(row).toHaveLength(width);
  for (const cell of rows.flat()) expect(cell.replace(/^[\s\u3000]+/, "")).not.toMatch(/^[=+\-@＝＋－＠]/);
  return rows;
}

describe("the result CSV", () => {
  it("quotes cells with line breaks, quotes and commas, and neutralises formulas after blanks and in full width", async () => {
    const { customerId } = await seedActiveCustomer(server, { email: "box@example.jp" });
    const rows = [
      ["box@example.jp", customerId, "1200", "Box", "", "ok-1"],
      ...hostile.map((cell, i) => [`${cell}@example.jp`, "", "1200", cell, "", `hostile-${i}`]),
    ];
    const text = await resultOf(Buffer.from(stringify([header, ...rows], { quoted: true })));
    const parsed = expectSafe(text, header.length + 4);
    expect(parsed).toHaveLength(rows.length + 1);
    expect(parsed[0]).toEqual([...header, "status", "Reason", "理由", "charge_id"]);
    // The row's charge, to find it in the dashboard and the API (issue #31 finding 10).
    expect(parsed[1].slice(-4)).toEqual(["succeeded", "", "", expect.stringMatching(/^trx-/)]);
    expect(parsed.slice(2).every((row) => row[9] === "")).toBe(true);
    // Each hostile description comes back whole, in its own row, behind an apostrophe when it could run.
    expect(parsed.slice(2).map((row) => row[3])).toEqual(
      hostile.map((cell) => (/^[\t\r]|^\s*[=+\-@＝＋－＠]/.test(cell) ? `'${cell}` : cell)),
    );
    expect(parsed.slice(2).every((row) => row[6] === "failed")).toBe(true);
  });

  it("is safe for the CSV fixtures too", async () => {
    for (const name of ["csv-injection.csv", "row-column-count.csv", "row-description-required.csv"]) {
      const raw = readFileSync(new URL(`../fixtures/csv/${name}`, import.meta.url), "latin1");
      const content = Buffer.from(raw.replace(/\{\{\w+(:\w+)?\}\}/g, `${name}-x`), "latin1");
      const width = (parse(content, { bom: true, to_line: 1 }) as string[][])[0].length;
      expectSafe(await resultOf(content), width + 4);
    }
  });
});
