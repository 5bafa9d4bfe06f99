import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, spawnServer } from "../helpers/process-server.js";

const dir = mkdtempSync(join(tmpdir(), "furikomi-race-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("processes started at once on a new SQLite file", () => {
  // Three rounds, three fresh files: each round one test, so a slow start fails alone.
  it.each([0, 1, 2])("all come up: the server and three CLI commands, on fresh file %i", async (round) => {
    const env = { DATABASE_URL: `file:${join(dir, `fresh-${round}.db`)}` };
    const [server, ...merchants] = await Promise.all([
      spawnServer(env),
      ...[1, 2, 3].map((i) =>
        runCli<{ merchant_id: string }>(["merchants", "create", "--name", `Shop ${round}-${i}`], env),
      ),
    ]);
    try {
      expect(merchants.map((m) => m.merchant_id)).toEqual([
        expect.stringMatching(/^mer-/),
        expect.stringMatching(/^mer-/),
        expect.stringMatching(/^mer-/),
      ]);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    } finally {
      await server.kill("SIGTERM");
    }
  });
});
