import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Every relative link and #anchor in README.md, CONTRIBUTING.md and docs/**/*.md resolves, and so does
// every `docs/….md#anchor` that a source comment cites. Anchors follow GitHub's rules, so a link that
// works here works on GitHub.

const self = fileURLToPath(import.meta.url);
const root = resolve(dirname(self), "../..");

/** GitHub's heading slug: lowercase, punctuation dropped (but `-` and `_`), spaces to `-`; letters of any script stay. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // a link shows its text
    .replace(/<[^>]+>/g, "") // inline HTML
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
}

/** Lines outside fenced code blocks, with inline code spans blanked (links inside code are not links). */
function proseLines(markdown: string): { text: string; line: number }[] {
  const lines: { text: string; line: number }[] = [];
  let fence: string | undefined;
  markdown.split("\n").forEach((text, index) => {
    const opener = /^\s{0,3}(`{3,}|~{3,})/.exec(text)?.[1];
    if (opener && (fence === undefined || opener.startsWith(fence))) {
      fence = fence === undefined ? opener : undefined;
      return;
    }
    if (fence === undefined) lines.push({ text, line: index + 1 });
  });
  return lines;
}

/** The anchors a page offers: its headings' slugs (duplicates numbered -1, -2, …) and explicit ids. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (heading) {
      const base = slug(heading[1].replace(/`/g, ""));
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const id of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id[1]);
  }
  return anchors;
}

/** The links of a page: inline `[text](target)` and reference definitions `[label]: target`. */
function linksOf(markdown: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  for (const { text, line } of proseLines(markdown)) {
    const prose = text.replace(/(`+)[^`]*?\1/g, (code) => " ".repeat(code.length));
    for (const link of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      links.push({ target: link[1], line });
    const definition = /^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(\s|$)/.exec(prose);
    if (definition) links.push({ target: definition[1], line });
  }
  return links;
}

/** A source file's citations of the docs: `docs/….md`, `README.md`, `CONTRIBUTING.md`, with an optional #anchor. */
function citationsOf(source: string): { target: string; line: number }[] {
  const citations: { target: string; line: number }[] = [];
  source.split("\n").forEach((text, index) => {
    for (const cite of text.matchAll(
      /(?<![\w/.-])((?:docs\/[\w./-]+|README|CONTRIBUTING)\.md(?:#[\p{L}\p{N}_-]+)?)/gu,
    )) {
      citations.push({ target: cite[1], line: index + 1 });
    }
  });
  return citations;
}

/**
 * A source file's citations of the repository's own files: `src/….ts` (and the other kinds of file
 * under src/), or a path under src/ named from its layer folder (`storage/sealed.ts`), as the
 * comments do. Globs (`src/**\/*.spec.ts`) are not citations.
 */
function sourcePathsOf(source: string): { target: string; line: number }[] {
  const cited: { target: string; line: number }[] = [];
  const layers = "api|cli|client|domain|flows|jobs|ports|server|storage|web";
  const path = new RegExp(
    `(?<![\\w/.*-])((?:src/|(?:${layers})/)[\\w./-]*\\w\\.(?:ts|mjs|js|css|html|proto))(?![\\w*])`,
    "g",
  );
  source.split("\n").forEach((line, index) => {
    // Comments only: `// …`, and the lines of a `/* … */` block (which start with `*` or `/*`).
    const text = /^\s*(\*|\/\*)/.test(line) ? line : line.slice(line.indexOf("//") + 1 || line.length);
    for (const match of text.matchAll(path)) {
      const target = match[1].startsWith("src/") ? match[1] : `src/${match[1]}`;
      cited.push({ target, line: index + 1 });
    }
  });
  return cited;
}

/**
 * Every link of `file` (a path relative to `base`) that does not resolve, as `file:line → target`.
 * Links resolve from the file's folder; source citations from `base` (`fromBase`).
 */
function brokenLinks(
  base: string,
  file: string,
  targets: { target: string; line: number }[],
  read: (path: string) => string | undefined,
  fromBase = false,
): string[] {
  const from = fromBase ? base : dirname(join(base, file));
  const broken: string[] = [];
  for (const { target, line } of targets) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) continue; // http:, mailto:, …
    const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
    const path = pathPart === "" ? join(base, file) : resolve(from, decodeURI(pathPart));
    const content = read(path);
    if (content === undefined) {
      broken.push(`${file}:${line} → ${target} (no such file)`);
    } else if (anchor !== undefined && path.endsWith(".md") && !anchorsOf(content).has(decodeURIComponent(anchor))) {
      broken.push(`${file}:${line} → ${target} (no such anchor in ${relative(base, path)})`);
    }
  }
  return broken;
}

function walk(dir: string, keep: (path: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((entry) => join(dir, entry))
    .filter((path) => keep(path) && statSync(path).isFile());
}

/** Reads a file ("" for a directory, which a link may name), or undefined when there is none. */
function readFromDisk(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  return statSync(path).isDirectory() ? "" : readFileSync(path, "utf8");
}

describe("the link checker", () => {
  const pages: Record<string, string> = {
    "/r/docs/a.md":
      '# Page A\n\n## Same\n\n## Same\n\n## Sandbox: error triggers\n\n## 口座振替 (bank)\n\n<a id="alias"></a>\n',
    "/r/docs/b.md":
      "# B\n\nSee [a](a.md#same-1), [t](a.md#sandbox-error-triggers), [j](a.md#口座振替-bank), [x](a.md#alias).\n",
    "/r/docs/broken.md":
      "# Broken\n\n[gone](missing.md) and [bad anchor](a.md#nope) and [self](#broken) and [nobody](#nowhere)\n\n```\n[in code](missing.md)\n```\n\n`[span](missing.md)` [web](https://example.com/x.md#y)\n",
  };
  const read = (path: string) => pages[path];

  it("slugs headings as GitHub does", () => {
    expect(slug("Sandbox: error triggers")).toBe("sandbox-error-triggers");
    expect(slug("TypeScript: furikomi/client")).toBe("typescript-furikomiclient");
    expect(slug("Customer e-mail (SMTP)")).toBe("customer-e-mail-smtp");
    expect(slug("口座振替 (bank)")).toBe("口座振替-bank");
    expect(slug("snake_case stays")).toBe("snake_case-stays");
    expect([...anchorsOf(pages["/r/docs/a.md"])]).toEqual([
      "page-a",
      "same",
      "same-1",
      "sandbox-error-triggers",
      "口座振替-bank",
      "alias",
    ]);
  });

  it("accepts links that resolve", () => {
    expect(brokenLinks("/r", "docs/b.md", linksOf(pages["/r/docs/b.md"]), read)).toEqual([]);
  });

  it("reports a missing file and a missing anchor, and ignores code and external links", () => {
    expect(brokenLinks("/r", "docs/broken.md", linksOf(pages["/r/docs/broken.md"]), read)).toEqual([
      "docs/broken.md:3 → missing.md (no such file)",
      "docs/broken.md:3 → a.md#nope (no such anchor in docs/a.md)",
      "docs/broken.md:3 → #nowhere (no such anchor in docs/broken.md)",
    ]);
  });

  it("finds citations in source comments", () => {
    const source = "// see docs/reference/contract.md#refunds and README.md.\n/** docs/a.md#same-1, src/x/README.md */";
    expect(citationsOf(source)).toEqual([
      { target: "docs/reference/contract.md#refunds", line: 1 },
      { target: "README.md", line: 1 },
      { target: "docs/a.md#same-1", line: 2 },
    ]);
    expect(brokenLinks("/r", "src/x.ts", [{ target: "docs/a.md#gone", line: 1 }], read, true)).toEqual([
      "src/x.ts:1 → docs/a.md#gone (no such anchor in docs/a.md)",
    ]);
  });
});

describe("source path citations", () => {
  it("finds src/ paths and layer-relative paths, not globs or imports' neighbours", () => {
    const source =
      '// see src/storage/sealed.ts and (storage/wal-sync.ts), flows/a-b.ts.\n/** src/**/*.spec.ts, gen/x_pb.ts, "../storage/x.js" */\nfile("flows/outbox.ts");';
    expect(sourcePathsOf(source)).toEqual([
      { target: "src/storage/sealed.ts", line: 1 },
      { target: "src/storage/wal-sync.ts", line: 1 },
      { target: "src/flows/a-b.ts", line: 1 },
    ]);
  });
});

describe("the repository's docs", () => {
  const markdown = [
    ...["README.md", "CONTRIBUTING.md"].filter((file) => existsSync(join(root, file))),
    ...walk(join(root, "docs"), (path) => path.endsWith(".md")).map((path) => relative(root, path)),
  ];

  it("has the docs tree", () => {
    expect(markdown).toContain("docs/reference/contract.md");
    expect(markdown.length).toBeGreaterThan(20);
  });

  it("every relative link and anchor in the Markdown resolves", () => {
    const broken = markdown.flatMap((file) =>
      brokenLinks(root, file, linksOf(readFileSync(join(root, file), "utf8")), readFromDisk),
    );
    expect(broken).toEqual([]);
  });

  it("every docs page and anchor cited from the code exists", () => {
    const sources = ["src", "test", "bench", "scripts", "tools"]
      .flatMap((dir) => walk(join(root, dir), (path) => /\.(ts|mjs|js|proto)$/.test(path)))
      .map((path) => relative(root, path))
      .filter((file) => file !== relative(root, self));
    const protos = walk(join(root, "proto"), (path) => path.endsWith(".proto")).map((path) => relative(root, path));
    const broken = [...sources, ...protos].flatMap((file) =>
      // Citations name paths from the repository's root.
      brokenLinks(root, file, citationsOf(readFileSync(join(root, file), "utf8")), readFromDisk, true),
    );
    expect(broken).toEqual([]);
  });

  it("every src/ file cited from the code, the tests and the .proto files exists", () => {
    const files = ["src", "test", "bench", "scripts", "tools", "proto"]
      .flatMap((dir) => walk(join(root, dir), (path) => /\.(ts|mjs|js|proto)$/.test(path)))
      .map((path) => relative(root, path))
      .filter((file) => file !== relative(root, self) && !file.startsWith("test/fixtures/"));
    expect(files).toContain("proto/payments/v1/dashboard_roles.proto");
    const missing = files.flatMap((file) =>
      sourcePathsOf(readFileSync(join(root, file), "utf8"))
        .filter(({ target }) => !existsSync(join(root, target)))
        .map(({ target, line }) => `${file}:${line} → ${target} (no such file)`),
    );
    expect(missing).toEqual([]);
  });
});
