import pg from "pg";
import { postgresTarget, queryLog } from "../../src/storage/database.js";
import { SqliteDatabase } from "../../src/storage/sqlite-driver.js";
import type { Dialect, TestServer } from "./test-server.js";

/**
 * What a hot path's queries must not do (docs/operations/benchmark.md#history-independence):
 * read a whole table, sort every row they matched, or, asked for rows by a list of keys, read
 * every row of the merchant instead.
 */
type Explain = (sql: string, parameters: readonly unknown[]) => Promise<string[]>;

async function explainer(server: TestServer, dialect: Dialect): Promise<{ explain: Explain; close(): Promise<void> }> {
  if (dialect === "sqlite") {
    const sqlite = new SqliteDatabase(server.databaseUrl.replace(/^file:/, ""), { readonly: true });
    return {
      explain: async (sql, parameters) => {
        const plan = (text: string, values: readonly unknown[]) =>
          (sqlite.prepare(`explain query plan ${text}`).all(...values) as { detail: string }[]).map(
            (row) => row.detail,
          );
        // SEARCH walks an index to the rows asked for; SCAN reads them all, and a temporary
        // B-tree sorts every row that matched before the first can be returned.
        const asRecorded = plan(sql, parameters).filter(
          (detail) => detail.startsWith("SCAN ") || detail.startsWith("USE TEMP B-TREE"),
        );
        // With a page of keys, the plan must still search by them (sorting a page is fine).
        const page = atPageSize(sql, parameters);
        const listed = listedColumnsOf(sql);
        const atPage = plan(page.sql, page.parameters).filter(
          (detail) => detail.startsWith("SCAN ") || merchantWide(detail, listed),
        );
        return [...new Set([...asRecorded, ...atPage])];
      },
      close: async () => void sqlite.close(),
    };
  }
  const { connectionString, schema } = postgresTarget(server.databaseUrl);
  const client = new pg.Client({ connectionString, options: `-c search_path=${schema}` });
  await client.connect();
  // The test's tables are small, so the planner would rightly prefer reading them whole: forbid
  // that, and a sequential scan is left only where no index can answer the query.
  await client.query("set enable_seqscan = off");
  return {
    explain: async (sql, parameters) =>
      (await client.query(`explain ${sql}`, parameters as unknown[])).rows
        .map((row: { "QUERY PLAN": string }) => row["QUERY PLAN"].trim())
        .filter((line: string) => line.includes("Seq Scan")),
    close: () => client.end(),
  };
}

/** A column that names rows (an id, a key, a number), not one of a few states or codes. */
const keyColumn = /^(id|reference)$|_(id|key|number)$/;

/** The key columns a query lists its rows by (`"id" in (?, …)`), other than the merchant. */
function listedColumnsOf(sql: string): string[] {
  return [...sql.matchAll(/"(\w+)" in \(/g)]
    .map((match) => match[1])
    .filter((column) => keyColumn.test(column) && column !== "merchant_id");
}

/** Rows a hot path asks for by a list of keys at once: its page (`limits.sqlInListIds`). */
const pageOfKeys = 500;

/**
 * The query as it runs with a page of keys: each `"key" in (?, …)` list of the test's few values
 * grows to `pageOfKeys` (its values repeated), since SQLite's plan changes with the list's length;
 * a list of states or codes stays as it is.
 */
function atPageSize(sql: string, parameters: readonly unknown[]): { sql: string; parameters: unknown[] } {
  const grown: unknown[] = [];
  let next = 0;
  const text = sql.replace(/"(\w+)" in \((\?(?:, \?)*)\)|\?/g, (match, column?: string, list?: string) => {
    const values = parameters.slice(next, next + (list === undefined ? 1 : list.split("?").length - 1));
    next += values.length;
    if (list === undefined || !keyColumn.test(column ?? "")) {
      grown.push(...values);
      return match;
    }
    for (let i = 0; i < pageOfKeys; i++) grown.push(values[i % values.length]);
    return `"${column}" in (${Array(pageOfKeys).fill("?").join(", ")})`;
  });
  return { sql: text, parameters: grown };
}

/**
 * SQLite plans without statistics: an equality on an indexed merchant_id looks more selective to
 * it than a list of keys, so a query for a page of rows by id would read all the merchant's. A
 * search by the merchant that uses none of the listed columns is that.
 */
function merchantWide(detail: string, listed: readonly string[]): boolean {
  const searched = /^SEARCH .*\((.*)\)$/.exec(detail)?.[1];
  if (!searched || listed.length === 0 || !/\bmerchant_id=/.test(searched)) return false;
  return !listed.some((column) => new RegExp(`\\b${column}=`).test(searched));
}

/** The plan lines of the queries that read a whole table, sort, or read the merchant's every row, each with its query. */
export async function fullScansOf(server: TestServer, dialect: Dialect, queries: Map<string, readonly unknown[]>) {
  const { explain, close } = await explainer(server, dialect);
  try {
    const fullScans: string[] = [];
    for (const [sql, parameters] of queries) {
      for (const line of await explain(sql, parameters)) fullScans.push(`${line}  ←  ${sql}`);
    }
    return fullScans;
  } finally {
    await close();
  }
}

/** Runs `work` and returns each distinct query it ran (select, update, delete) with its last parameters. */
export async function queriesOf(work: () => Promise<void>): Promise<Map<string, readonly unknown[]>> {
  const seen = new Map<string, readonly unknown[]>();
  queryLog.record = (sql, parameters) => {
    if (/^\s*(select|update|delete|with)\b/i.test(sql)) seen.set(sql, parameters);
  };
  try {
    await work();
  } finally {
    queryLog.record = undefined;
  }
  return seen;
}
