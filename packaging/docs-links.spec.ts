// The documentation holds together: every `SPEC J3` cited anywhere in the tree names a requirement
// of docs/spec.md, every relative link of README.md and docs/ reaches a file (and a heading, when
// it names one), and the README quotes the hello examples and the two commands as they are.
// Plain file reads, no network.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
const SKIPPED_DIRS = new Set(["node_modules", "dist", ".git", ".stryker-tmp", "reports", "coverage", ".verq"]);
const CITING_FILE = /\.(ts|mts|mjs|js|md)$/;

/** Every requirement the spec must define, cited or not yet. */
const REQUIRED_IDS = [
  ...range("J", 1, 10),
  ...range("G", 1, 9),
  ...range("F", 1, 9),
  ...["P1", "P2", "S1", "Q1", "Q2", "X1", "C1", "R1", "E1", "O1", "W1", "K1", "H1", "M1", "O2"],
];
const PLANNED_IDS = ["O2"];

function range(letter: string, from: number, to: number): string[] {
  return Array.from({ length: to - from + 1 }, (_, i) => `${letter}${from + i}`);
}

function walk(dir: string, keep: (file: string) => boolean, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED_DIRS.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, keep, out);
    else if (entry.isFile() && keep(full)) out.push(full);
  }
  return out;
}

const read = (file: string): string => fs.readFileSync(file, "utf8");
const relative = (file: string): string => path.relative(ROOT, file);

/** `SPEC J3`, `SPEC J1–J7`, `SPEC F1–F3, F8`, `SPEC J3/J4`: the ids each citation names, ranges expanded. */
function citedIds(text: string): string[] {
  const ids: string[] = [];
  for (const match of text.matchAll(/SPEC\s+([A-Z]\d{1,2}(?:\s*(?:[–-]|,|\/)\s*[A-Z]?\d{1,2})*)/g)) {
    for (const part of match[1]!.split(/\s*[,/]\s*/)) {
      const bounds = /^([A-Z])(\d{1,2})(?:\s*[–-]\s*([A-Z])?(\d{1,2}))?$/.exec(part);
      if (bounds === null) throw new Error(`unreadable citation "${match[0]}"`);
      const [, letter, first, , last] = bounds;
      ids.push(...range(letter!, Number(first), Number(last ?? first)));
    }
  }
  return ids;
}

/** Lines outside fenced code blocks, with their line numbers. */
function prose(text: string): { line: string; number: number }[] {
  const lines: { line: string; number: number }[] = [];
  let fence: string | null = null;
  text.split("\n").forEach((line, index) => {
    const opener = /^\s*(```+|~~~+)/.exec(line);
    if (opener !== null) {
      if (fence === null) fence = opener[1]!;
      else if (line.trim().startsWith(fence)) fence = null;
      return;
    }
    if (fence === null) lines.push({ line, number: index + 1 });
  });
  return lines;
}

/** The anchors GitHub gives a Markdown file's headings (and any explicit `id="…"`). */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { line } of prose(text)) {
    for (const id of line.matchAll(/\b(?:id|name)="([^"]+)"/g)) anchors.add(id[1]!);
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading === null) continue;
    const rendered = heading[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/`/g, "")
      .replace(/\*+/g, "");
    const slug = rendered
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The relative link targets of a Markdown file, outside code blocks and code spans. */
function relativeLinks(text: string): { target: string; number: number }[] {
  const links: { target: string; number: number }[] = [];
  for (const { line, number } of prose(text)) {
    const withoutCode = line.replace(/`[^`]*`/g, "");
    for (const link of withoutCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = link[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      links.push({ target, number });
    }
  }
  return links;
}

const SPEC = path.join(ROOT, "docs", "spec.md");
const README = path.join(ROOT, "README.md");
const MARKDOWN = [README, ...walk(path.join(ROOT, "docs"), (file) => file.endsWith(".md"))];

describe("docs/spec.md", () => {
  const specAnchors = anchorsOf(read(SPEC));
  const defined = new Map<string, string>();
  for (const { line } of prose(read(SPEC))) {
    const heading = /^###\s+([A-Z]\d{1,2})\s/.exec(line);
    if (heading !== null) defined.set(heading[1]!, line);
  }

  it("reads the citation forms the tree uses", () => {
    expect(citedIds("(SPEC J3) SPEC F1–F3, F8 and SPEC J3/J4; SPEC G5-G7, DESIGN")).toEqual([
      "J3",
      ...["F1", "F2", "F3", "F8"],
      ...["J3", "J4"],
      ...["G5", "G6", "G7"],
    ]);
  });

  it("defines every requirement once, under a heading of its own with a stable anchor; the planned ones say so", () => {
    for (const id of REQUIRED_IDS) {
      const heading = defined.get(id);
      expect(heading, `docs/spec.md has no "### ${id} …" heading`).toBeDefined();
      const anchor = [...anchorsOf(heading!)][0]!;
      expect(anchor.startsWith(`${id.toLowerCase()}-`)).toBe(true);
      expect(specAnchors.has(anchor)).toBe(true);
    }
    const text = read(SPEC);
    for (const id of PLANNED_IDS) {
      const section = text.slice(text.indexOf(defined.get(id)!)).split("\n### ")[0]!;
      expect(section, `${id} is not built yet: its section must say "Planned"`).toContain("_Planned._");
    }
  });

  it("has every requirement that a SPEC citation in the tree names", () => {
    const missing: string[] = [];
    let citations = 0;
    for (const file of walk(ROOT, (name) => CITING_FILE.test(name))) {
      for (const id of citedIds(read(file))) {
        citations += 1;
        if (!defined.has(id)) missing.push(`${relative(file)}: SPEC ${id}`);
      }
    }
    expect(missing).toEqual([]);
    // The tree cites the spec in well over a hundred places: a scan that finds none is broken.
    expect(citations).toBeGreaterThan(100);
  });
});

describe("links in README.md and docs/", () => {
  it("every relative link reaches a file, and a heading of it when it names one", () => {
    const broken: string[] = [];
    for (const file of MARKDOWN) {
      for (const { target, number } of relativeLinks(read(file))) {
        const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
        const resolved = pathPart === "" ? file : path.resolve(path.dirname(file), decodeURIComponent(pathPart));
        const where = `${relative(file)}:${number} → ${target}`;
        if (!fs.existsSync(resolved)) {
          broken.push(`${where} (no such file)`);
          continue;
        }
        if (anchor !== undefined && resolved.endsWith(".md") && !anchorsOf(read(resolved)).has(anchor)) {
          broken.push(`${where} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it("finds the links it checks", () => {
    const count = MARKDOWN.reduce((sum, file) => sum + relativeLinks(read(file)).length, 0);
    expect(count).toBeGreaterThan(50);
    expect(anchorsOf("# A `b` [c](d.md)\n## Same\n## Same\n```\n# not a heading\n```\n")).toEqual(
      new Set(["a-b-c", "same", "same-1"]),
    );
  });
});

describe("README.md", () => {
  const readme = read(README);

  it("gives the two commands exactly", () => {
    expect(readme).toContain("npx -y pnpm@10 install --frozen-lockfile && npx -y pnpm@10 demo\n");
    expect(readme).toContain("npx -y pnpm@10 test\n");
  });

  it("quotes the hello examples as they are in examples/hello, which their test runs", () => {
    for (const example of ["examples/hello/src/sqlite.ts", "examples/hello/src/postgres.ts"]) {
      const quoted = readme.includes("```ts\n" + read(path.join(ROOT, example)) + "```\n");
      expect(quoted, `README.md does not quote ${example} verbatim in a \`\`\`ts block`).toBe(true);
    }
  });

  it("stays a page for users: at most about 250 lines", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(260);
  });
});
