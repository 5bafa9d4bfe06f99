// What the bench scripts share: the furikomi (or echo) process they start and the load they drive.
import autocannon from "autocannon";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

export const root = new URL("..", import.meta.url).pathname;
export const seconds = Number(process.env.BENCH_SECONDS ?? 10);
export const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
export const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

/**
 * Starts furikomi as production runs it: the compiled bundle (`node dist/main.js`, rebuilt first
 * when a source is newer), not TypeScript through tsx. BENCH_PROFILE=dir writes a V8 CPU profile
 * of the server there when it exits.
 */
export async function startFurikomi(
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess; readyMs: number }> {
  execFileSync(process.execPath, ["scripts/build.mjs", "--if-stale", "server"], { cwd: root, stdio: "inherit" });
  const profile = process.env.BENCH_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  return startProcess([...profile, "dist/main.js"], env, "furikomi listening", []);
}

/**
 * Starts `node --import tsx …args` and resolves once it logs `readyMessage` with its port, with
 * the milliseconds from spawning the process to that line.
 */
export async function startProcess(
  args: string[],
  env: Record<string, string>,
  readyMessage: string,
  loader = ["--import", "tsx"],
): Promise<{ url: string; child: ChildProcess; readyMs: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [...loader, ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    lines.on("line", (line) => {
      try {
        const entry = JSON.parse(line);
        if (entry.msg === readyMessage) resolve(entry.port);
      } catch {
        // not JSON
      }
    });
    child.once("exit", (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
  const readyMs = Math.round(performance.now() - started);
  // The access log goes on: drain it unread, so parsing it takes no CPU from the load generator.
  lines.close();
  child.stdout!.resume();
  return { url: `http://127.0.0.1:${port}`, child, readyMs };
}

/** Drives `request` (a POST unless it says GET) at `url` with autocannon for `duration` seconds (default BENCH_SECONDS). */
export async function load(
  url: string,
  request: { method?: "GET" | "POST"; path: string; body: string; headers: Record<string, string> },
  duration = seconds,
) {
  const get = request.method === "GET";
  const result = await autocannon({
    url: url + request.path,
    method: get ? "GET" : "POST",
    body: get ? undefined : request.body,
    headers: { "content-type": "application/json", ...request.headers },
    connections,
    duration,
  });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}
