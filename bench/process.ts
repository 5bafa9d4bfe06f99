// What the bench scripts share: the furikomi (or echo) process they start and the load they drive.
import autocannon from "autocannon";
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

export const root = new URL("..", import.meta.url).pathname;
export const seconds = Number(process.env.BENCH_SECONDS ?? 10);
export const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);

/** Starts `node --import tsx …args` and resolves once it logs `readyMessage` with its port. */
export async function startProcess(
  args: string[],
  env: Record<string, string>,
  readyMessage: string,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["--import", "tsx", ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      try {
        const entry = JSON.parse(line);
        if (entry.msg === readyMessage) resolve(entry.port);
      } catch {
        // not JSON
      }
    });
    child.once("exit", (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

/** Drives `request` (a POST) at `url` with autocannon for `duration` seconds (default BENCH_SECONDS). */
export async function load(
  url: string,
  request: { path: string; body: string; headers: Record<string, string> },
  duration = seconds,
) {
  const result = await autocannon({
    url: url + request.path,
    method: "POST",
    body: request.body,
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
