import { build } from "../../scripts/build.mjs";

const root = new URL("../..", import.meta.url).pathname;

/**
 * The compiled server (dist/main.js, `npm run build`), rebuilt when a source is newer: for suites
 * that start the server process many times, as it starts in about a second where tsx transforms
 * every file on each start.
 */
export async function bundleServer(): Promise<string> {
  await build({ names: ["server"], ifStale: true });
  return `${root}dist/main.js`;
}
