// Bundles the merchant dashboard (src/web/dashboard/) with esbuild into build/dashboard/ (git-ignored):
// app.js (the Connect client, generated code and the app, one file), app.css and index.html; and the
// hosted payment page (src/web/pay/) into build/pay/: pay.js (from main.ts), pay.css and index.html.
// Runs at `npm install` (postinstall) and before `npm start` with --if-stale, which skips the build
// when every output is newer than every source it is made from.
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bundles = [
  {
    source: join(root, "src/web/dashboard"),
    out: join(root, "build/dashboard"),
    entry: "app.ts",
    script: "app.js",
    css: "app.css",
  },
  {
    source: join(root, "src/web/pay"),
    out: join(root, "build/pay"),
    entry: "main.ts",
    script: "pay.js",
    css: "pay.css",
  },
];
const outputs = bundles.flatMap((b) => [b.script, b.css, "index.html"].map((name) => join(b.out, name)));

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
  // The page bundles also take pure rules from src/domain (kana, ゆうちょ) and the error table.
  const sources = [...bundles.map((b) => b.source), join(root, "gen/payments"), join(root, "src/domain")];
  return built >= Math.max(...sources.map(newestMtime), statSync(join(root, "src/errors.ts")).mtimeMs);
}

if (process.argv.includes("--if-stale") && isFresh()) process.exit(0);

let esbuild;
try {
  esbuild = await import("esbuild");
} catch {
  console.error("build-web: esbuild is not installed (npm install); the dashboard and the payment page are not built");
  process.exit(process.argv.includes("--if-stale") ? 0 : 1);
}

for (const bundle of bundles) {
  mkdirSync(bundle.out, { recursive: true });
  await esbuild.build({
    entryPoints: [join(bundle.source, bundle.entry)],
    outfile: join(bundle.out, bundle.script),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: ["es2020"],
    minify: true,
    sourcemap: false,
    legalComments: "none",
    logLevel: "warning",
  });
  copyFileSync(join(bundle.source, bundle.css), join(bundle.out, bundle.css));
  copyFileSync(join(bundle.source, "index.html"), join(bundle.out, "index.html"));
  console.log(`build-web: ${bundle.entry} built into ${bundle.out}`);
}
