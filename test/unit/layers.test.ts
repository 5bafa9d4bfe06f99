import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The walls between the layers (docs/architecture.md): server → api → flows → domain, storage,
 * ports; jobs call flows; flows enqueue jobs through storage; SQL lives in src/storage only;
 * src/domain is pure. This reads the import graph of src/ and fails when a lower layer imports
 * a higher one, when a top-level file other than the roots imports a layer, or on any import cycle.
 */

const srcDir = resolve(import.meta.dirname, "../../src");

/** The layers a layer must never import (a layer is the first folder under src/, or "." for the top-level files). */
const forbidden: Readonly<Record<string, readonly string[]>> = {
  storage: ["flows", "api", "server", "jobs"],
  ports: ["flows", "api", "server", "jobs"],
  flows: ["api", "server", "jobs"],
  api: ["server"],
};

/**
 * The top-level files (layer "."). The roots (main.ts, composition-root.ts, preflight.ts) start and wire the
 * service and may import anything; the others (config.ts, errors.ts) are read by every layer, so
 * they import only domain and generated code (docs/architecture.md#layers).
 */
const roots = ["main.ts", "composition-root.ts", "preflight.ts"];
const topLevelMayImport = [".", "domain", "gen"];

/** What src/domain may import besides itself: generated types and plain libraries (no relative path out). */
const domainMayImport = ["domain", "gen"];

const sqlBuilder = /\b(selectFrom|insertInto|updateTable|deleteFrom)\s*\(|\bsql`/;

interface SourceFile {
  /** Path under src/, e.g. "flows/refund.ts". */
  readonly path: string;
  /** Relative imports, resolved to paths under src/ ("../gen/…" for generated code). */
  readonly imports: readonly string[];
  readonly text: string;
}

function layerOf(path: string): string {
  if (path.startsWith("../gen/")) return "gen";
  const slash = path.indexOf("/");
  return slash < 0 ? "." : path.slice(0, slash);
}

/** Every broken wall, as "file → import (rule)". */
function layerViolations(files: readonly SourceFile[]): string[] {
  const violations: string[] = [];
  for (const file of files) {
    const layer = layerOf(file.path);
    for (const target of file.imports) {
      const to = layerOf(target);
      if (layer === "domain" && !domainMayImport.includes(to))
        violations.push(`${file.path} → ${target} (domain imports only domain and generated types)`);
      if (forbidden[layer]?.includes(to)) violations.push(`${file.path} → ${target} (${layer} must not import ${to})`);
      if (layer === "." && !roots.includes(file.path) && !topLevelMayImport.includes(to))
        violations.push(
          `${file.path} → ${target} (a top-level file other than the roots imports only domain and generated code)`,
        );
    }
    if (layer !== "storage" && sqlBuilder.test(file.text))
      violations.push(`${file.path} → SQL builder (SQL lives in src/storage)`);
  }
  return violations;
}

/** Every import cycle, each once, as "a.ts → b.ts → a.ts" (from its alphabetically first file). */
function importCycles(files: readonly SourceFile[]): string[] {
  const importsOf = new Map(files.map((f) => [f.path, f.imports.filter((i) => i !== f.path)]));
  const cycles = new Set<string>();
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const visit = (path: string) => {
    state.set(path, "visiting");
    stack.push(path);
    for (const next of importsOf.get(path) ?? []) {
      if (state.get(next) === "visiting") {
        const cycle = stack.slice(stack.indexOf(next));
        const first = cycle.indexOf([...cycle].sort()[0]!);
        const rotated = [...cycle.slice(first), ...cycle.slice(0, first)];
        cycles.add([...rotated, rotated[0]].join(" → "));
      } else if (!state.has(next) && importsOf.has(next)) visit(next);
    }
    stack.pop();
    state.set(path, "done");
  };
  for (const path of [...importsOf.keys()].sort()) if (!state.has(path)) visit(path);
  return [...cycles].sort();
}

function sourceFiles(dir: string): SourceFile[] {
  const files: SourceFile[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".spec.ts")) continue;
    const full = join(entry.parentPath, entry.name);
    const text = readFileSync(full, "utf8");
    const imports = [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)].map((m) =>
      relative(srcDir, resolve(dirname(full), m[1])).replace(/\.js$/, ".ts"),
    );
    files.push({ path: relative(srcDir, full), imports, text });
  }
  return files;
}

describe("layers", () => {
  it("src/ keeps its walls", () => {
    const files = sourceFiles(srcDir);
    expect(files.length).toBeGreaterThan(100);
    expect(files.find((f) => f.path === "storage/wake-channel.ts")?.imports).toContain("storage/database.ts");
    expect(layerViolations(files)).toEqual([]);
  });

  it("only the roots read the mode; flows read the rules it implies (docs/architecture.md#modes)", () => {
    const roots = ["main.ts", "composition-root.ts", "preflight.ts", "config.ts", "cli/main.ts"];
    const readers = sourceFiles(srcDir)
      .filter((file) => !roots.includes(file.path) && !file.path.startsWith("web/"))
      .filter((file) => /config\.mode\b|\bmode\s*[!=]==\s*"(sandbox|production)"/.test(file.text))
      .map((file) => file.path);
    expect(readers).toEqual([]);
  });

  it("src/ has no import cycle", () => {
    expect(importCycles(sourceFiles(srcDir))).toEqual([]);
  });

  it("finds each cycle once, however long (a synthetic graph)", () => {
    const file = (path: string, imports: string[]) => ({ path, imports, text: "" });
    expect(
      importCycles([
        file("web/pay/flow.ts", ["web/pay/steps/bank.ts", "web/pay/page.ts"]),
        file("web/pay/steps/bank.ts", ["web/pay/flow.ts", "web/pay/page.ts"]),
        file("web/pay/page.ts", []),
        file("a.ts", ["b.ts"]),
        file("b.ts", ["c.ts"]),
        file("c.ts", ["a.ts"]),
        file("self.ts", ["self.ts"]),
      ]),
    ).toEqual(["a.ts → b.ts → c.ts → a.ts", "web/pay/flow.ts → web/pay/steps/bank.ts → web/pay/flow.ts"]);
  });

  it("reports each kind of broken wall (a synthetic graph)", () => {
    const file = (path: string, imports: string[], text = "") => ({ path, imports, text });
    expect(
      layerViolations([
        file("domain/charge.ts", ["domain/ids.ts", "../gen/payments/v1/enums_pb.ts", "errors.ts"]),
        file("storage/wake-channel.ts", ["flows/flow-context.ts", "storage/database.ts"]),
        file("ports/sandbox-bank.ts", ["jobs/job-runner.ts", "storage/bank-accounts.ts", "domain/ids.ts"]),
        file("flows/refund.ts", ["jobs/job-runner.ts", "storage/jobs.ts", "ports/clock.ts"]),
        file("api/payment-service.ts", ["server/interceptors.ts", "flows/refund.ts"]),
        file("server/app.ts", ["api/payment-service.ts"]),
        file("jobs/job-runner.ts", ["flows/refund.ts"], 'await trx.selectFrom("jobs")'),
        file("flows/outbox.ts", [], "await trx.insertInto ('events')"),
        file("storage/jobs.ts", [], 'trx.deleteFrom("jobs"); sql`select 1`'),
        file("composition-root.ts", ["server/app.ts", "ports/clock.ts"], "sql`select 1`"),
        file("config.ts", ["domain/mode.ts", "ports/smtp-notifier.ts", "errors.ts"]),
      ]),
    ).toEqual([
      "domain/charge.ts → errors.ts (domain imports only domain and generated types)",
      "storage/wake-channel.ts → flows/flow-context.ts (storage must not import flows)",
      "ports/sandbox-bank.ts → jobs/job-runner.ts (ports must not import jobs)",
      "flows/refund.ts → jobs/job-runner.ts (flows must not import jobs)",
      "api/payment-service.ts → server/interceptors.ts (api must not import server)",
      "jobs/job-runner.ts → SQL builder (SQL lives in src/storage)",
      "flows/outbox.ts → SQL builder (SQL lives in src/storage)",
      "composition-root.ts → SQL builder (SQL lives in src/storage)",
      "config.ts → ports/smtp-notifier.ts (a top-level file other than the roots imports only domain and generated code)",
    ]);
  });
});
