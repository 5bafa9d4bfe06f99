import { readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

/**
 * Once per `vitest run` (vitest.config.ts): names the run, so the workers' reused databases
 * (test/helpers/migrated-database.ts) carry its name, and removes them all when the run ends.
 */
export default function setup(): () => Promise<void> {
  const run = String(process.pid);
  process.env.FURIKOMI_TEST_RUN = run;
  return async () => {
    for (const entry of readdirSync(tmpdir()))
      if (entry.startsWith(`furikomi-template-${run}-`))
        rmSync(join(tmpdir(), entry), { recursive: true, force: true });
    const client = new pg.Client({
      connectionString: process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test",
    });
    try {
      await client.connect();
      const { rows } = await client.query<{ name: string }>(
        "select nspname as name from pg_namespace where nspname like $1",
        [`t\\_${run}\\_%`],
      );
      for (const { name } of rows) await client.query(`drop schema if exists ${name} cascade`);
    } catch {
      // No PostgreSQL (a SQLite-only run): nothing was created there.
    } finally {
      await client.end().catch(() => undefined);
    }
  };
}
