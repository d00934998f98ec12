import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { VERQ_ERROR_CODES, VerqError } from "../src/index.ts";

const PACKAGES = fileURLToPath(new URL("../../", import.meta.url));
const CODE_FILE = join("core", "src", "errors.ts");

/** Every `.ts` file under `packages/<name>/src`, as [path from `packages/`, text]. */
function sources(): [string, string][] {
  const files: [string, string][] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(PACKAGES, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts")) files.push([path, readFileSync(join(PACKAGES, path), "utf8")]);
    }
  };
  for (const pkg of readdirSync(PACKAGES, { withFileTypes: true })) {
    if (!pkg.isDirectory()) continue;
    try {
      walk(join(pkg.name, "src"));
    } catch {
      // A package without a src folder has no code.
    }
  }
  return files;
}

/**
 * The `VERQ_*` words of `text` that are codes: every one but the names the sources declare
 * (`const VERQ_MACHINES`) and the environment variables they read (`env.VERQ_NOW_MS`,
 * `.env("VERQ_LOG_LEVEL")`), wherever those appear.
 */
function codesIn(all: readonly (readonly [string, string])[]): Map<string, string[]> {
  const text = all.map(([, t]) => t).join("\n");
  const notCodes = new Set<string>();
  for (const m of text.matchAll(/(?:const|type|let|class|function)\s+(VERQ_[A-Z0-9_]+)/g)) notCodes.add(m[1] as string);
  for (const m of text.matchAll(/env(?:\.|\[["']|\(["'])(VERQ_[A-Z0-9_]+)/g)) notCodes.add(m[1] as string);
  const used = new Map<string, string[]>();
  for (const [path, source] of all) {
    for (const m of source.matchAll(/VERQ_[A-Z0-9_]+/g)) {
      const word = m[0];
      if (notCodes.has(word)) continue;
      used.set(word, [...(used.get(word) ?? []), path]);
    }
  }
  return used;
}

describe("the closed list of VERQ_* codes", () => {
  it("holds every VERQ_* code a source file of any package names", () => {
    const used = codesIn(sources());
    // A scan that finds no code proves nothing: the sources name most of the list.
    expect(used.size, "codes found in the sources").toBeGreaterThan(VERQ_ERROR_CODES.length / 2);
    const listed = new Set<string>(VERQ_ERROR_CODES);
    const unlisted = [...used].filter(([code]) => !listed.has(code)).map(([code, paths]) => `${code} in ${paths[0]}`);
    expect(unlisted).toEqual([]);
  });

  it("lists no code that no file but its own uses, and each code once", () => {
    const used = codesIn(sources().filter(([path]) => path !== CODE_FILE));
    expect(VERQ_ERROR_CODES.filter((code) => !used.has(code))).toEqual([]);
    expect(new Set(VERQ_ERROR_CODES).size).toBe(VERQ_ERROR_CODES.length);
    expect(VERQ_ERROR_CODES.every((code) => /^VERQ_[A-Z0-9_]+$/.test(code))).toBe(true);
  });

  it("tells codes from the names and environment variables that look like them", () => {
    const used = codesIn([
      ["a.ts", 'export const VERQ_THING = 1; const x = env.VERQ_SETTING; y.env("VERQ_OTHER");'],
      ["b.ts", 'throw new VerqError("VERQ_NEW_CODE", "x"); // VERQ_THING, VERQ_SETTING'],
    ]);
    expect([...used]).toEqual([["VERQ_NEW_CODE", ["b.ts"]]]);
  });

  it("is what a VerqError takes: a code of the list is kept as it is", () => {
    for (const code of VERQ_ERROR_CODES) expect(new VerqError(code, "m").code).toBe(code);
  });
});
