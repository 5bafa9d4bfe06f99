// Bundles the merchant dashboard (src/web/dashboard/) with esbuild into build/dashboard/ (git-ignored):
// app.js (the Connect client, generated code and the app, one file), app.css and index.html.
// Runs at `npm install` (postinstall) and before `npm start` with --if-stale, which skips the build
// when every output is newer than every source it is made from.
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "src/web/dashboard");
const out = join(root, "build/dashboard");
const outputs = ["app.js", "app.css", "index.html"].map((name) => join(out, name));

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function isFresh() {
  if (!outputs.every((path) => existsSync(path))) return false;
  const built = Math.min(...outputs.map((path) => statSync(path).mtimeMs));
  return built >= Math.max(newestMtime(source), newestMtime(join(root, "gen/payments")));
}

if (process.argv.includes("--if-stale") && isFresh()) process.exit(0);

let esbuild;
try {
  esbuild = await import("esbuild");
} catch {
  console.error("build-web: esbuild is not installed (npm install); the dashboard is not built");
  process.exit(process.argv.includes("--if-stale") ? 0 : 1);
}

mkdirSync(out, { recursive: true });
await esbuild.build({
  entryPoints: [join(source, "app.ts")],
  outfile: join(out, "app.js"),
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2020"],
  minify: true,
  sourcemap: false,
  legalComments: "none",
  logLevel: "warning",
});
copyFileSync(join(source, "app.css"), join(out, "app.css"));
copyFileSync(join(source, "index.html"), join(out, "index.html"));
console.log(`build-web: dashboard built into ${out}`);
