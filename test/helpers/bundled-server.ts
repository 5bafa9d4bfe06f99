import { mkdirSync, symlinkSync, existsSync } from "node:fs";
import { build } from "esbuild";

const root = new URL("../..", import.meta.url).pathname;
const app = `${root}build/test-server/app`;

/**
 * src/main.ts bundled once into one file (packages stay external), for suites that start the
 * server process many times: it starts in about a second, where tsx transforms every file on
 * each start. The bundle sits where src/server/ would (web/ beside it, build/ two levels up), so
 * the pages find their assets by the same relative paths.
 */
export async function bundleServer(): Promise<string> {
  mkdirSync(`${app}/server`, { recursive: true });
  if (!existsSync(`${app}/web`)) symlinkSync(`${root}src/web`, `${app}/web`);
  if (!existsSync(`${root}build/test-server/build`)) symlinkSync(`${root}build`, `${root}build/test-server/build`);
  const entry = `${app}/server/main.mjs`;
  await build({
    entryPoints: [`${root}src/main.ts`],
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    outfile: entry,
    logLevel: "warning",
  });
  return entry;
}
