import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabaseUrl } from "../helpers/test-server.js";
import { spawnServer } from "../helpers/process-server.js";

/** True while a process with this id exists (signal 0 only checks). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// The two start commands docs/operations/running.md gives operators: `npm start` (npm runs the
// build check, then execs node) and `node dist/main.js` (under systemd).
describe.each([
  { command: "npm start", argv: ["npm", "start", "--silent"], signal: "SIGTERM" as const },
  { command: "npm start", argv: ["npm", "start", "--silent"], signal: "SIGINT" as const },
  { command: "node dist/main.js", argv: undefined, signal: "SIGTERM" as const },
])("$signal to `$command`", ({ argv, signal }) => {
  const fresh = freshDatabaseUrl();
  afterAll(() => fresh.cleanup());

  let server: Awaited<ReturnType<typeof spawnServer>>;
  beforeAll(async () => {
    server = await spawnServer({ DATABASE_URL: fresh.url }, { command: argv });
  });

  it("stops the whole server gracefully and logs it", async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(alive(server.serverPid)).toBe(true);
    const code = await server.kill(signal);
    expect(code).toBe(0);
    // npm waits for its child; so when the started command has exited, the server is gone too.
    expect(alive(server.serverPid)).toBe(false);
    const messages = server.logs.map((line) => line.msg);
    expect(messages).toContain("shutting down");
    expect(server.logs.find((line) => line.msg === "stopped")).toMatchObject({ signal, pid: server.serverPid });
  });
});
