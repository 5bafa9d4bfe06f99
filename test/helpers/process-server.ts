import { spawn, execFile, type ChildProcess } from "node:child_process";
import { promisify } from "node:util";
import { createInterface } from "node:readline";
import { bundleServer } from "./bundled-server.js";
import { testPasswordHashEnv } from "./password-hash-env.js";
import { registerChild } from "./teardown.js";

const root = new URL("../..", import.meta.url).pathname;

export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** The server's own process id (from its log), which differs from child.pid under `npm start`. */
  readonly serverPid: number;
  /** Every log line the server wrote to stdout so far, parsed. */
  readonly logs: Record<string, unknown>[];
  /** Resolves with the exit code once the process ended. */
  readonly exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

// vitest exports MODE=test to child processes; the server reads MODE, so set it explicitly.
/**
 * Starts the compiled server (dist/main.js, rebuilt when stale) as its own process and waits
 * until it listens; `entry` runs another script with node, `command` starts it another way (e.g. `npm start`).
 */
export async function spawnServer(
  env: Record<string, string>,
  options: { entry?: string; command?: readonly string[] } = {},
): Promise<ServerProcess> {
  const entry = options.entry ?? (await bundleServer());
  const [file, ...args] = options.command ?? [process.execPath, "--enable-source-maps", entry];
  const child = spawn(file!, args, {
    cwd: root,
    env: {
      ...process.env,
      MODE: "sandbox",
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      ...testPasswordHashEnv(env),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // A server a test left running (it timed out, threw, or never saw one start) is killed after its file.
  registerChild(child);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const stderr: string[] = [];
  child.stderr!.on("data", (d) => stderr.push(String(d)));
  const logs: Record<string, unknown>[] = [];
  const listening = await new Promise<{ port: number; pid: number }>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      try {
        const entry = JSON.parse(line);
        logs.push(entry);
        if (entry.msg === "furikomi listening") resolve(entry);
      } catch {
        // not a log line
      }
    });
    void exited.then((code) => reject(new Error(`server exited with ${code}: ${stderr.join("")}`)));
  });
  return {
    url: `http://127.0.0.1:${listening.port}`,
    child,
    serverPid: listening.pid,
    logs,
    exited,
    kill(signal = "SIGKILL") {
      child.kill(signal);
      return exited;
    },
  };
}

/** Runs the CLI (bin/furikomi.js, the `furikomi` command) and parses its JSON output. */
export async function runCli<T = unknown>(args: string[], env: Record<string, string>): Promise<T> {
  const run = promisify(execFile)(process.execPath, ["bin/furikomi.js", ...args], {
    cwd: root,
    env: { ...process.env, MODE: "sandbox", ...testPasswordHashEnv(env), ...env },
  });
  registerChild(run.child);
  const { stdout } = await run.catch((error: { stdout?: string; stderr?: string; message: string }) => {
    throw new Error(`${error.message}\n${error.stdout ?? ""}${error.stderr ?? ""}`);
  });
  return JSON.parse(stdout) as T;
}
