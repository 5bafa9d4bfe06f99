// npm run cluster [-- --instances 3 --port 8080]: N furikomi instances on one PostgreSQL, for a
// local try-out of scale-out. Instance i listens on port+i; all share DATABASE_URL (default: the
// `furikomi` schema of the local PostgreSQL) and start together (migrations run once, under an
// advisory lock). Each log line is prefixed with its instance; Ctrl-C stops them all gracefully.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";

import { packageRoot } from "../src/server/package-root.js";

const root = packageRoot(import.meta.url).pathname;
const { values } = parseArgs({
  options: { instances: { type: "string", default: "2" }, port: { type: "string", default: "8080" } },
});
const count = Number(values.instances);
const basePort = Number(values.port);
const databaseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres?schema=furikomi";
if (!/^postgres(ql)?:\/\//.test(databaseUrl)) {
  console.error(
    `DATABASE_URL must be a postgres:// URL: several instances share one PostgreSQL (SQLite is single-process). Got ${databaseUrl}`,
  );
  process.exit(2);
}
if (!Number.isInteger(count) || count < 1) {
  console.error(`--instances must be a positive integer, not ${values.instances}`);
  process.exit(2);
}

const children: ChildProcess[] = [];
for (let i = 0; i < count; i++) {
  const port = basePort + i;
  const child = spawn(process.execPath, ["--enable-source-maps", "dist/main.js"], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL ?? `http://localhost:${port}`,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on("line", (line) => console.log(`[${i} :${port}] ${line}`));
  }
  child.once("exit", (code, signal) => {
    console.log(`[${i} :${port}] exited (${signal ?? code})`);
    if (children.every((c) => c.exitCode !== null || c.signalCode !== null)) process.exit(0);
  });
  children.push(child);
}
console.log(
  `${count} instances on ${databaseUrl.replace(/\/\/[^@]*@/, "//…@")}: ${children.map((_, i) => `http://127.0.0.1:${basePort + i}`).join(" ")}`,
);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => children.forEach((child) => child.kill("SIGTERM")));
}
