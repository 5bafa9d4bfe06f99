// npm run build: compiles with esbuild, each target only when asked or (with --if-stale) when a
// source is newer than its outputs.
//   server: src/main.ts, the CLI and the cluster launcher into dist/ (main.js, cli.js, cluster.js,
//           with source maps; packages stay in node_modules). `npm start` and bin/furikomi.js run them.
//   web:    the merchant dashboard (src/web/dashboard/) into build/dashboard/ (app.js: the Connect
//           client, generated code and the app in one file; app.css and index.html), and the hosted
//           payment page (src/web/pay/) into build/pay/ (pay.js from main.ts, pay.css, index.html),
//           and the customer app (src/web/app/) into build/app/ (app.js, app.css, index.html, its
//           manifest and icons).
//   client: the @furikomi/client package (clients/typescript/dist/): src/client/ with the generated
//           code and the small libraries it uses in one ES module (only the connect and protobuf
//           packages stay imports), and its .d.ts by tsc. Built by `npm pack` there (prepack).
// `node scripts/build.mjs [--if-stale] [server] [web] [client]` (no target: server and web). Runs at `npm install`
// (postinstall), before `npm start` and from bin/furikomi.js with --if-stale. Outputs are written
// to a temporary name and renamed, so a process starting meanwhile never reads half a file.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

const clientOut = join(root, "clients/typescript/dist");

/** The browser pages: the merchant dashboard and the hosted payment page. */
const webBundles = [
  { source: "src/web/dashboard", out: "build/dashboard", entry: "app.ts", script: "app.js", css: "app.css" },
  { source: "src/web/pay", out: "build/pay", entry: "main.ts", script: "pay.js", css: "pay.css" },
  {
    source: "src/web/app",
    out: "build/app",
    entry: "main.ts",
    script: "app.js",
    css: "app.css",
    // What makes the customer app installable (a manifest and its icons; no service worker).
    files: ["manifest.webmanifest", "icon.svg", "icon-192.png", "icon-512.png"],
  },
];

const targets = {
  server: {
    sources: ["src", "gen", "scripts/cluster.ts", "package.json"],
    outputs: ["dist/main.js", "dist/cli.js", "dist/cluster.js"],
    async build(esbuild) {
      const result = await esbuild.build({
        entryPoints: { main: "src/main.ts", cli: "src/cli/main.ts", cluster: "scripts/cluster.ts" },
        absWorkingDir: root,
        outdir: join(root, "dist"),
        bundle: true,
        platform: "node",
        format: "esm",
        target: ["node20"],
        packages: "external",
        sourcemap: true,
        write: false,
        logLevel: "warning",
      });
      writeAtomically(result.outputFiles);
    },
  },
  web: {
    // The page bundles also take pure rules from src/domain (kana, ゆうちょ) and the error table.
    sources: ["src/web/dashboard", "src/web/pay", "src/web/app", "gen/payments", "src/domain", "src/errors.ts"],
    outputs: webBundles.flatMap((b) =>
      [b.script, b.css, "index.html", ...(b.files ?? [])].map((name) => `${b.out}/${name}`),
    ),
    async build(esbuild) {
      for (const bundle of webBundles) {
        const source = join(root, bundle.source);
        const out = join(root, bundle.out);
        const result = await esbuild.build({
          entryPoints: [join(source, bundle.entry)],
          outfile: join(out, bundle.script),
          bundle: true,
          format: "esm",
          platform: "browser",
          target: ["es2020"],
          minify: true,
          legalComments: "none",
          write: false,
          logLevel: "warning",
        });
        writeAtomically(result.outputFiles);
        copyFileSync(join(source, bundle.css), join(out, bundle.css));
        for (const name of ["index.html", ...(bundle.files ?? [])]) copyFileSync(join(source, name), join(out, name));
      }
    },
  },
  client: {
    sources: ["src/client", "src/domain", "gen"],
    outputs: ["clients/typescript/dist/index.js", "clients/typescript/dist/index.d.ts"],
    async build(esbuild) {
      rmSync(clientOut, { recursive: true, force: true });
      const result = await esbuild.build({
        entryPoints: [join(root, "src/client/index.ts")],
        outfile: join(clientOut, "index.js"),
        bundle: true,
        platform: "node",
        format: "esm",
        target: ["node20"],
        external: ["@connectrpc/connect", "@connectrpc/connect-node", "@bufbuild/protobuf"],
        sourcemap: true,
        write: false,
        logLevel: "warning",
      });
      writeAtomically(result.outputFiles);
      // The declarations of src/client/index.ts and what it imports (generated code included).
      execFileSync(
        process.execPath,
        [
          join(root, "node_modules/typescript/bin/tsc"),
          "--project",
          join(root, "clients/typescript/tsconfig.build.json"),
        ],
        { stdio: "inherit" },
      );
      writeFileSync(join(clientOut, "index.d.ts"), 'export * from "./types/src/client/index.js";\n');
    },
  },
};
const defaultTargets = ["server", "web"];

function writeAtomically(files) {
  for (const file of files) {
    mkdirSync(dirname(file.path), { recursive: true });
    const temporary = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temporary, file.contents);
    renameSync(temporary, file.path);
  }
}

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** True when every output exists and is newer than every source (a copy without sources is fresh). */
export function isFresh(name) {
  const { sources, outputs } = targets[name];
  const paths = outputs.map((output) => join(root, output));
  if (!paths.every((path) => existsSync(path))) return false;
  const built = Math.min(...paths.map((path) => statSync(path).mtimeMs));
  return built >= Math.max(...sources.map((source) => newestMtime(join(root, source))));
}

/** Builds the named targets (all when none), skipping fresh ones when ifStale. */
export async function build({ names = defaultTargets, ifStale = false } = {}) {
  const due = names.filter((name) => !(ifStale && isFresh(name)));
  if (due.length === 0) return;
  let esbuild;
  try {
    esbuild = await import("esbuild");
  } catch {
    throw new Error("build: esbuild is not installed (npm install)");
  }
  for (const name of due) {
    await targets[name].build(esbuild);
    console.error(`build: ${name} built`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const args = process.argv.slice(2);
  const unknown = args.filter((arg) => arg !== "--if-stale" && !(arg in targets));
  if (unknown.length > 0) {
    console.error(`usage: node scripts/build.mjs [--if-stale] [${Object.keys(targets).join("] [")}]`);
    process.exit(2);
  }
  const names = args.filter((arg) => arg in targets);
  await build({ names: names.length > 0 ? names : undefined, ifStale: args.includes("--if-stale") });
}
