import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

/**
 * The SQLite driver for the Node that runs us. better-sqlite3 12 wraps its objects in
 * `node::ObjectWrap`, and from Node 24.19 that class's destructor aborts the process when the
 * garbage collector frees a statement outside a JavaScript context; better-sqlite3 13 (Node-API)
 * does not, but it needs Node 22 or later. So: 13 on Node 22+, 12 on Node 20
 * (docs/operations/running.md#node-versions). Both have the same API.
 */
const require = createRequire(import.meta.url);
const nodeMajor = Number(process.versions.node.split(".")[0]);

export const SqliteDatabase: typeof BetterSqlite3 = load(nodeMajor >= 22 ? "better-sqlite3-napi" : "better-sqlite3");

function load(name: string): typeof BetterSqlite3 {
  try {
    return require(name);
  } catch (error) {
    throw new Error(
      `the SQLite driver ${name} is not installed for Node ${process.version}: run npm ci with this node`,
      {
        cause: error,
      },
    );
  }
}
export type SqliteDatabase = BetterSqlite3.Database;
export type SqliteStatement = BetterSqlite3.Statement;
