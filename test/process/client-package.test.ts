import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freshDatabaseUrl } from "../helpers/test-server.js";
import { runCli, spawnServer, type ServerProcess } from "../helpers/process-server.js";

const run = promisify(execFile);
const root = new URL("../..", import.meta.url).pathname;
const fixture = join(root, "test/fixtures/client-package");

/** Every package installed in a project (scoped ones as @scope/name). */
function installedPackages(project: string): string[] {
  const modules = join(project, "node_modules");
  return readdirSync(modules)
    .filter((name) => !name.startsWith("."))
    .flatMap((name) =>
      name.startsWith("@") ? readdirSync(join(modules, name)).map((sub) => `${name}/${sub}`) : [name],
    )
    .sort();
}

// The merchant's view: the packed @furikomi/client installed alone into an empty project,
// a usage example compiled by tsc under strict settings and run against a server.
describe("the @furikomi/client package", () => {
  const scratch = mkdtempSync(join(tmpdir(), "furikomi-client-"));
  const fresh = freshDatabaseUrl();
  let server: ServerProcess;
  let apiKey: string;

  beforeAll(async () => {
    const env = { DATABASE_URL: fresh.url };
    ({ api_key: apiKey } = await runCli<{ api_key: string }>(["merchants", "create", "--name", "Package Shop"], env));
    server = await spawnServer(env);
  });
  afterAll(async () => {
    await server?.kill();
    await fresh.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("packs, installs with only the connect and protobuf packages, compiles strictly and calls the API", async () => {
    const { stdout: packed } = await run("npm", ["pack", "--silent", "--pack-destination", scratch], {
      cwd: join(root, "clients/typescript"),
    });
    const tarball = join(scratch, packed.trim().split("\n").at(-1)!);
    const { stdout: listing } = await run("tar", ["-tzf", tarball]);
    const files = listing.split("\n").filter(Boolean);
    expect(files).toEqual(
      expect.arrayContaining(["package/dist/index.js", "package/dist/index.d.ts", "package/package.json"]),
    );
    // JavaScript and declarations only: no TypeScript sources to compile.
    expect(files.filter((file) => !/(\.js|\.js\.map|\.d\.ts|package\.json|README\.md)$/.test(file))).toEqual([]);

    const project = join(scratch, "shop");
    await run("mkdir", ["-p", project]);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "shop", private: true, type: "module" }));
    await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball], { cwd: project });
    const installed = installedPackages(project);
    expect(installed).toContain("@furikomi/client");
    const allowed = /^(@furikomi\/client|@connectrpc\/connect|@connectrpc\/connect-node|@bufbuild\/protobuf)$/;
    expect(installed.filter((name) => !allowed.test(name))).toEqual([]);

    for (const file of ["example.ts", "tsconfig.json"]) copyFileSync(join(fixture, file), join(project, file));
    await run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "--project", project], {
      cwd: project,
    });
    const { stdout } = await run(process.execPath, [join(project, "out/example.js"), server.url, apiKey], {
      cwd: project,
    });
    expect(JSON.parse(stdout)).toEqual({
      customers: 0,
      notFound: "5 404 false",
      verification: "WebhookVerificationError",
    });
  });
});
