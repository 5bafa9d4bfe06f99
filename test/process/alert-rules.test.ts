import { describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = new URL("../..", import.meta.url).pathname;
const rules = join(root, "ops/prometheus");

// promtool comes with Debian's prometheus package (scripts/provision-test-deps.sh installs it).
describe("the Prometheus alert rules (ops/prometheus/furikomi-rules.yml)", () => {
  it("pass promtool check rules", async () => {
    const { stdout } = await run("promtool", ["check", "rules", "furikomi-rules.yml"], { cwd: rules });
    expect(stdout).toMatch(/SUCCESS: \d+ rules found/);
  });

  it("pass their unit tests: no async-engine alert on a maintenance retry, one when workers are down", async () => {
    const { stdout } = await run("promtool", ["test", "rules", "furikomi-rules.test.yml"], { cwd: rules });
    expect(stdout).toContain("SUCCESS");
  });

  it("are the alerts docs/operations/monitoring.md lists under What to watch", () => {
    const names = [...readFileSync(join(rules, "furikomi-rules.yml"), "utf8").matchAll(/- alert: (\w+)/g)].map(
      (m) => m[1],
    );
    const monitoring = readFileSync(join(root, "docs/operations/monitoring.md"), "utf8");
    const watch = monitoring.slice(monitoring.indexOf("## What to watch"));
    const documented = [...watch.matchAll(/^\| `(Furikomi\w+)` \|/gm)].map((m) => m[1]);
    expect(names.length).toBeGreaterThan(5);
    expect(documented).toEqual(names);
  });
});
