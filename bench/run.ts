// npm run bench: each RPC against furikomi and, in the same run, against a bare connect-node echo
// (bench/echo-server.ts), with the same load; prints requests/s, p50/p99 and the ratio to the echo,
// and writes the same figures to bench/results/latest.json (one object per scenario).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connections, load, root, rounds, seconds, startFurikomi, startProcess } from "./process.js";
import { type BenchRequest, scenarios, type Scenario } from "./scenarios.js";

/**
 * Sends the request to furikomi once and has the echo answer its method with the same message, so
 * the ratio compares the same bytes on the wire (a write's extra one is before the timed rounds).
 */
async function answerAlike(echoUrl: string, furikomiUrl: string, request: BenchRequest, echoRequest: BenchRequest) {
  const get = request.method === "GET";
  const res = await fetch(furikomiUrl + request.path, {
    method: get ? "GET" : "POST",
    body: get ? undefined : request.body,
    headers: { "content-type": "application/json", ...request.headers },
  });
  if (!res.ok) throw new Error(`${request.path}: ${res.status} ${await res.text()}`);
  const method = echoRequest.path.split("/").pop();
  const put = await fetch(`${echoUrl}/answers/${method}`, { method: "PUT", body: await res.text() });
  if (put.status !== 204) throw new Error(`echo refused the answer of ${method}: ${put.status}`);
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "furikomi-bench-"));
  const databaseUrl = `file:${join(dir, "bench.db")}`;
  const env = { MODE: "sandbox", PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "warn", DATABASE_URL: databaseUrl };
  const echo = await startProcess(["bench/echo-server.ts"], {}, "echo listening");
  const furikomi = await startFurikomi({ ...env, LOG_LEVEL: "info" });
  const results: object[] = [];
  try {
    for (const scenario of scenarios.filter((s) => !only || only.includes(s.name))) {
      const request = await scenario.prepare({ url: furikomi.url, databaseUrl });
      await answerAlike(echo.url, furikomi.url, request, scenario.echoRequest ?? request);
      // Echo and furikomi alternate round by round, so the shared machine's load falls on both alike.
      const echoRounds: Measured[] = [];
      const furikomiRounds: Measured[] = [];
      for (let round = 0; round < rounds; round++) {
        echoRounds.push(await load(echo.url, scenario.echoRequest ?? request));
        furikomiRounds.push(await load(furikomi.url, request));
      }
      const baseline = medianOf(echoRounds);
      const measured = medianOf(furikomiRounds);
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
    echo.child.kill("SIGTERM");
    await new Promise((resolve) => furikomi.child.once("exit", resolve).kill("SIGTERM"));
  }
  if (only) return;
  const startUp = await measureStartUp(databaseUrl);
  results.push(startUp);
  console.log(`${"start-up".padEnd(34)} ${JSON.stringify(startUp)}`);
  // End-to-end figures with no echo counterpart, each from its own process and database.
  for (const [name, file] of endToEnd) {
    const row = { scenario: name, ...(await runStandalone(file)) };
    results.push(row);
    console.log(`${name.padEnd(34)} ${JSON.stringify(row)}`);
  }
  for (const databaseUrl of [undefined, postgresUrl]) results.push(await runDebitDay(debitDays, databaseUrl));
  mkdirSync(join(root, "bench/results"), { recursive: true });
  writeFileSync(
    join(root, "bench/results/latest.json"),
    JSON.stringify({ at: new Date().toISOString(), seconds, rounds, connections, results }, null, 2),
  );
  console.log("written bench/results/latest.json");
}

/**
 * From `node dist/main.js` to "furikomi listening" (goal ≤ 1.5 s): the median of 3 starts on a new
 * database (its migrations included) and of 3 on the bench's database, migrated and holding the run's rows.
 */
async function measureStartUp(benchDatabaseUrl: string) {
  const env = { MODE: "sandbox", PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info" };
  const median = async (databaseUrl: () => string) => {
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const { child, readyMs } = await startFurikomi({ ...env, DATABASE_URL: databaseUrl() });
      times.push(readyMs);
      await new Promise((resolve) => child.once("exit", resolve).kill("SIGTERM"));
    }
    return times.sort((a, b) => a - b)[1];
  };
  const newDatabaseMs = await median(() => `file:${join(mkdtempSync(join(tmpdir(), "furikomi-start-")), "new.db")}`);
  const existingDatabaseMs = await median(() => benchDatabaseUrl);
  return { scenario: "start-up", newDatabaseMs, existingDatabaseMs, goalMs: 1500 };
}

/** `--only GetCharge,Refund`: just these RPCs, without the end-to-end figures. */
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1].split(",") : undefined;

const endToEnd: Array<[string, string]> = [
  ["off-session end to end", "bench/off-session-e2e.ts"],
  ["webhook delivery", "bench/webhook-throughput.ts"],
  ["CSV batch of 300 rows", "bench/csv-batch.ts"],
  ["history independence", "bench/history.ts"],
  ["Zengin file of 100,000 debits", "bench/zengin-files.ts"],
];

/** The debit day's subscriptions: `--debit-day N`, 100,000 by default and in the full run. */
const debitDays = Number(process.argv[process.argv.indexOf("--debit-day") + 1]) || 100_000;
/** Where the full run's debit day runs on PostgreSQL (a fresh schema, dropped afterwards). */
const postgresUrl = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/**
 * bench/debit-day.ts with `subscriptions`, on SQLite or `databaseUrl`; prints its phases beside the
 * goals and answers its figures.
 */
async function runDebitDay(subscriptions: number, databaseUrl?: string) {
  const env = { BENCH_DEBIT_DAY: String(subscriptions), ...(databaseUrl ? { BENCH_DATABASE_URL: databaseUrl } : {}) };
  const day = (await runStandalone("bench/debit-day.ts", env)) as DebitDay;
  const { goals } = day;
  const chargeAndFile = Number((day.charge.seconds + day.file.seconds).toFixed(2));
  const cpu = `${day.charge.cpuSeconds} + ${day.file.cpuSeconds} s CPU`;
  const figures = [
    `charge + file ${chargeAndFile} s, ${cpu} ${goal("≤", chargeAndFile, goals.chargeAndFileSeconds, "s")}`,
    `import ${day.import.seconds} s, ${day.import.cpuSeconds} s CPU ${goal("≤", day.import.seconds, goals.importSeconds, "s")}`,
    `webhooks ${day.webhooks.events} in ${day.webhooks.seconds} s, ${day.webhooks.eventsPerSecond}/s ` +
      goal("≥", day.webhooks.eventsPerSecond, goals.webhookEventsPerSecond, "/s"),
    `seed ${day.seed.seconds} s, peak RSS ${day.webhooks.peakRssMiB} MiB`,
  ];
  console.log(
    `${`debit day of ${subscriptions.toLocaleString("en")} (${day.database})`.padEnd(34)} ${figures.join("  ")}`,
  );
  return { ...day, chargeAndFileSeconds: chargeAndFile };
}

/** "(goal ≤ 10 s, met)": a figure against its goal. */
function goal(sign: "≤" | "≥", value: number, target: number, unit: string): string {
  const met = sign === "≤" ? value <= target : value >= target;
  return `(goal ${sign} ${target}${unit === "s" ? " s" : unit}, ${met ? "met" : "NOT MET"})`;
}

interface Phase {
  seconds: number;
  cpuSeconds: number;
  peakRssMiB: number;
}

/** What bench/debit-day.ts prints. */
interface DebitDay {
  scenario: string;
  database: string;
  seed: Phase;
  charge: Phase;
  file: Phase;
  import: Phase;
  webhooks: Phase & { events: number; eventsPerSecond: number };
  goals: { chargeAndFileSeconds: number; importSeconds: number; webhookEventsPerSecond: number };
}

/** Runs a bench script that prints one JSON object as its last line of output. */
async function runStandalone(file: string, env: Record<string, string> = {}): Promise<object> {
  const child = spawn(process.execPath, ["--import", "tsx", file], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`${file} exited with ${code}`);
  return JSON.parse(output.trim().split("\n").at(-1)!);
}

/** The debit day alone, its figures written to bench/results/debit-day.json. */
async function writeDebitDay(databaseUrl: string | undefined) {
  const day = await runDebitDay(debitDays, databaseUrl);
  mkdirSync(join(root, "bench/results"), { recursive: true });
  writeFileSync(
    join(root, "bench/results/debit-day.json"),
    JSON.stringify({ at: new Date().toISOString(), ...day }, null, 2),
  );
  console.log("written bench/results/debit-day.json");
}

type Measured = Awaited<ReturnType<typeof load>>;

/** Each figure's median over the rounds (BENCH_ROUNDS, 3 by default); errors summed. */
function medianOf(rounds: Measured[]): Measured {
  const median = (pick: (m: Measured) => number) => rounds.map(pick).sort((a, b) => a - b)[(rounds.length - 1) >> 1];
  return {
    requestsPerSecond: median((m) => m.requestsPerSecond),
    p50Ms: median((m) => m.p50Ms),
    p99Ms: median((m) => m.p99Ms),
    non2xx: rounds.reduce((sum, m) => sum + m.non2xx, 0),
    errors: rounds.reduce((sum, m) => sum + m.errors, 0),
  };
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
// `npm run bench -- --debit-day [N]`: only the debit day (bench/debit-day.ts), on BENCH_DATABASE_URL or SQLite.
else if (process.argv.includes("--debit-day")) await writeDebitDay(process.env.BENCH_DATABASE_URL);
else await main();
