import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The shape of every package's sources, whatever packages exist (`packages/*\/src`): no import
 * circle among a package's own files, and no file longer than a reader can hold in mind. Imports
 * are read with TypeScript's own scanner (type-only imports and `export … from` included), so a
 * circle through types counts like any other: it still ties the files' meaning together.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const MAX_LINES = 400;

/** Every `.ts` file under `packages/*\/src`, as paths relative to the repository root. */
function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && entry.name.endsWith(".ts")) files.push(path.relative(root, full));
    }
  };
  for (const pkg of fs.readdirSync(path.join(root, "packages"), { withFileTypes: true })) {
    const src = path.join(root, "packages", pkg.name, "src");
    if (pkg.isDirectory() && fs.existsSync(src)) walk(src);
  }
  return files.sort();
}

/** The file a relative specifier of `from` names, if it is one of `known`. */
function resolveRelative(from: string, specifier: string, known: ReadonlySet<string>): string | undefined {
  const base = path.join(path.dirname(from), specifier);
  const candidates = [base, `${base}.ts`, base.replace(/\.js$/, ".ts"), path.join(base, "index.ts")];
  return candidates.find((candidate) => known.has(candidate));
}

/** Each source file and the source files it imports (relative imports only: a package's own files). */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = fs.readFileSync(path.join(root, file), "utf8");
    const { importedFiles } = ts.preProcessFile(text, true, true);
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => resolveRelative(file, specifier, known))
      .filter((target): target is string => target !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/**
 * The import circles of `graph`: for each strongly connected set of files (Tarjan) that holds
 * a circle, one circle through it (the files in import order, the first repeated last) and every
 * file the set ties together.
 */
function importCircles(graph: ReadonlyMap<string, readonly string[]>): { circle: string[]; tied: string[] }[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  const connect = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      const selfLoop = component.length === 1 && (graph.get(file) ?? []).includes(file);
      if (component.length > 1 || selfLoop) components.push(component);
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) connect(file);
  return components.map((component) => ({ circle: circleThrough(graph, new Set(component)), tied: component.sort() }));
}

/** One circle inside a strongly connected set of files, from its first file (by name) back to it. */
function circleThrough(graph: ReadonlyMap<string, readonly string[]>, members: ReadonlySet<string>): string[] {
  const start = [...members].sort()[0] as string;
  // Breadth first from the start's targets back to the start: the shortest circle through it.
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    for (const target of graph.get(file) ?? []) {
      if (!members.has(target) || cameFrom.has(target)) continue;
      cameFrom.set(target, file);
      if (target === start) {
        const circle = [start];
        for (let at = cameFrom.get(start) as string; at !== start; at = cameFrom.get(at) as string) circle.unshift(at);
        circle.unshift(start);
        return circle;
      }
      queue.push(target);
    }
  }
  return [...members, start];
}

function lineCount(file: string): number {
  const text = fs.readFileSync(path.join(root, file), "utf8");
  const lines = text.split("\n").length;
  return text.endsWith("\n") ? lines - 1 : lines;
}

describe("the shape of packages/*/src", () => {
  it("no file imports a file that imports it back, directly or through others", () => {
    const circles = importCircles(importGraph(sourceFiles()));
    expect(circles.map(({ circle, tied }) => `${circle.join(" -> ")} (ties together: ${tied.join(", ")})`)).toEqual([]);
  });

  it(`no file is longer than ${MAX_LINES} lines`, () => {
    const long = sourceFiles()
      .map((file) => ({ file, lines: lineCount(file) }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });

  it("the circle finder finds a circle through types and a file importing itself, and none in a tree", () => {
    const graph = new Map<string, string[]>([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts", "d.ts"]],
      ["d.ts", []],
      ["e.ts", ["e.ts"]],
      ["f.ts", ["d.ts"]],
    ]);
    expect(importCircles(graph)).toEqual([
      { circle: ["a.ts", "b.ts", "c.ts", "a.ts"], tied: ["a.ts", "b.ts", "c.ts"] },
      { circle: ["e.ts", "e.ts"], tied: ["e.ts"] },
    ]);
    expect(
      importCircles(
        new Map([
          ["a.ts", ["b.ts"]],
          ["b.ts", []],
        ]),
      ),
    ).toEqual([]);
  });

  it("scans every package's sources and reads their imports: a scan that finds none proves nothing", () => {
    const files = sourceFiles();
    // The packages' sources are found, well over a hundred files of them.
    const packages = [...new Set(files.map((file) => file.split(path.sep)[1]))];
    expect(packages).toEqual(expect.arrayContaining(["adapters", "cli", "core", "store", "testing"]));
    expect(files.length).toBeGreaterThan(100);
    // The graph the circle finder walks has edges: relative imports resolve to source files.
    const edges = [...importGraph(files).values()].reduce((sum, targets) => sum + targets.length, 0);
    expect(edges).toBeGreaterThan(files.length / 2);
  });

  it("the import reader sees type-only imports and re-exports, and resolves them to source files", () => {
    const text = 'import type { A } from "./a.ts";\nexport { b } from "./b.ts";\nimport { c } from "@verq/core";\n';
    const specifiers = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
    expect(specifiers).toEqual(["./a.ts", "./b.ts", "@verq/core"]);
    const known = new Set(["packages/x/src/a.ts", "packages/x/src/dir/index.ts"]);
    expect(resolveRelative("packages/x/src/m.ts", "./a.ts", known)).toBe("packages/x/src/a.ts");
    expect(resolveRelative("packages/x/src/m.ts", "./dir", known)).toBe("packages/x/src/dir/index.ts");
    expect(resolveRelative("packages/x/src/m.ts", "./missing.ts", known)).toBeUndefined();
  });
});
