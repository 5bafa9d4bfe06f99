// `tsx bench/cpu-per-call.ts [bundle …]`: the server's CPU time per call of one scenario
// (BENCH_SCENARIO, GetCharge by default; any of bench/scenarios.ts), read from
// /proc before and after a fixed number of calls (BENCH_CALLS, 20,000), for each compiled bundle
// given (default dist/main.js) and the bare echo, alternating round by round (BENCH_ROUNDS, 5) on
// one database so the shared machine's load falls on all alike; prints each round and the medians.
// To compare two builds, copy the first one's dist/main.js aside (inside dist/, so packages resolve).
// BENCH_KEYED=1 sends a new Idempotency-Key header with every request.
import autocannon from "autocannon";
import { readFileSync, mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { connections, startProcess } from "./process.js";
import { scenarios } from "./scenarios.js";

const calls = Number(process.env.BENCH_CALLS ?? 20_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const bundles = process.argv.slice(2).length ? process.argv.slice(2) : ["dist/main.js"];
const ticksPerSecond = 100; // USER_HZ on Linux

/** utime + stime of the process, in milliseconds. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

async function drive(
  url: string,
  request: { path: string; body: string; headers: Record<string, string> },
  amount: number,
) {
  await autocannon({
    url: url + request.path,
    method: "POST",
    body: request.body,
    headers: { "content-type": "application/json", ...request.headers },
    connections,
    amount,
    // BENCH_KEYED=1: a new Idempotency-Key on every request, as a merchant's retry-safe client sends.
    requests: keyed
      ? [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, "idempotency-key": newKey() } }) }]
      : undefined,
  });
}

const keyed = process.env.BENCH_KEYED === "1";
let keys = 0;
const newKey = () => `bench-${process.pid}-${++keys}`;

const dir = mkdtempSync(join(tmpdir(), "furikomi-cpu-"));
const databaseUrl = `file:${join(dir, "bench.db")}`;
const env = { MODE: "sandbox", PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", DATABASE_URL: databaseUrl };
const scenarioName = process.env.BENCH_SCENARIO ?? "GetCharge";
const scenario = scenarios.find((s) => s.name === scenarioName)!;
const servers = [];
const profile = process.env.BENCH_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
for (const bundle of bundles) {
  servers.push({ name: bundle, ...(await startProcess([...profile, bundle], env, "furikomi listening", [])) });
}
const request = await scenario.prepare({ url: servers[0].url, databaseUrl });
const echo = { name: "echo", ...(await startProcess(["bench/echo-server.ts"], {}, "echo listening")) };
const answer = await fetch(servers[0].url + request.path, {
  method: "POST",
  body: request.body,
  headers: { "content-type": "application/json", ...request.headers },
});
await fetch(`${echo.url}/answers/${scenarioName}`, { method: "PUT", body: await answer.text() });
const all = [...servers, echo];
const perCall = new Map<string, number[]>(all.map((s) => [s.name, []]));
try {
  for (const s of all) await drive(s.url, s === echo ? { ...request, headers: {} } : request, calls / 4); // warm up
  for (let round = 0; round < rounds; round++) {
    const line: string[] = [];
    for (const s of all) {
      const before = cpuMs(s.child.pid!);
      await drive(s.url, s === echo ? { ...request, headers: {} } : request, calls);
      const ms = (cpuMs(s.child.pid!) - before) / calls;
      perCall.get(s.name)!.push(ms);
      line.push(`${s.name} ${ms.toFixed(3)}`);
    }
    console.log(`round ${round + 1}: ${line.join("  ")} ms/call  load ${loadavg()[0].toFixed(2)}`);
  }
} finally {
  await Promise.all(all.map((s) => new Promise((resolve) => s.child.once("exit", resolve).kill("SIGTERM"))));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1];
for (const [name, xs] of perCall) console.log(`median ${name}: ${median(xs).toFixed(3)} ms/call`);
