// npm run bench: each RPC against furikomi and, in the same run, against a bare connect-node echo
// (bench/echo-server.ts), with the same load; prints requests/s, p50/p99 and the ratio to the echo,
// and writes the same figures to bench/results/latest.json (one object per scenario).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connections, load, root, seconds, startProcess } from "./process.js";
import { scenarios, type Scenario } from "./scenarios.js";

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "furikomi-bench-"));
  const databaseUrl = `file:${join(dir, "bench.db")}`;
  const env = { MODE: "sandbox", PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "warn", DATABASE_URL: databaseUrl };
  const echo = await startProcess(["bench/echo-server.ts"], {}, "echo listening");
  const furikomi = await startProcess(["src/main.ts"], { ...env, LOG_LEVEL: "info" }, "furikomi listening");
  const results: object[] = [];
  try {
    for (const scenario of scenarios) {
      const request = await scenario.prepare({ url: furikomi.url, databaseUrl });
      const baseline = await load(echo.url, scenario.echoRequest ?? request);
      const measured = await load(furikomi.url, request);
      const ratio = Number((measured.requestsPerSecond / baseline.requestsPerSecond).toFixed(2));
      const row = {
        scenario: scenario.name,
        kind: scenario.kind,
        goal: goalOf(scenario),
        ...measured,
        echoRequestsPerSecond: baseline.requestsPerSecond,
        echoP99Ms: baseline.p99Ms,
        ratio,
      };
      results.push(row);
      console.log(
        `${scenario.name.padEnd(34)} ${String(measured.requestsPerSecond).padStart(6)} req/s  p50 ${measured.p50Ms} ms  p99 ${measured.p99Ms} ms  ` +
          `echo ${baseline.requestsPerSecond} req/s  ratio ${ratio} (goal ≥ ${goalOf(scenario)})${measured.non2xx ? `  non-2xx ${measured.non2xx}` : ""}`,
      );
    }
  } finally {
    furikomi.child.kill("SIGTERM");
    echo.child.kill("SIGTERM");
  }
  // End-to-end figures with no echo counterpart, each from its own process and database.
  for (const [name, file] of endToEnd) {
    const row = { scenario: name, ...(await runStandalone(file)) };
    results.push(row);
    console.log(`${name.padEnd(34)} ${JSON.stringify(row)}`);
  }
  mkdirSync(join(root, "bench/results"), { recursive: true });
  writeFileSync(
    join(root, "bench/results/latest.json"),
    JSON.stringify({ at: new Date().toISOString(), seconds, connections, results }, null, 2),
  );
  console.log("written bench/results/latest.json");
}

const endToEnd: Array<[string, string]> = [
  ["off-session end to end", "bench/off-session-e2e.ts"],
  ["webhook delivery", "bench/webhook-throughput.ts"],
  ["CSV batch of 300 rows", "bench/csv-batch.ts"],
  ["history independence", "bench/history.ts"],
  ["Zengin file of 100,000 debits", "bench/zengin-files.ts"],
];

/** Runs a bench script that prints one JSON object as its last line of output. */
async function runStandalone(file: string): Promise<object> {
  const child = spawn(process.execPath, ["--import", "tsx", file], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`${file} exited with ${code}`);
  return JSON.parse(output.trim().split("\n").at(-1)!);
}

function goalOf(scenario: Scenario): number {
  return scenario.kind === "read" ? 0.8 : 0.6;
}

// `npm run bench -- --soak [--duration 10m]`: the soak (bench/soak.ts) instead of the comparison.
if (process.argv.includes("--soak")) await (await import("./soak.js")).runSoak(process.argv.slice(2));
// `npm run bench -- --cluster`: PostgreSQL with 1 vs 2 instances instead (bench/cluster.ts).
else if (process.argv.includes("--cluster")) await import("./cluster.js");
// `npm run bench -- --history`: only the history-independence figures (bench/history.ts).
else if (process.argv.includes("--history")) await import("./history.js");
else await main();
