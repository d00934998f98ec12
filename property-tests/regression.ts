import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Engine } from "@verq/testing";
import type { Counterexample } from "./property-failure.ts";

/** Where the committed regressions live: one folder per property, one JSON file per failing case. */
export const REGRESSIONS_DIR = fileURLToPath(new URL("./regressions/", import.meta.url));

/**
 * A failing case of a property, kept so that every later run replays it first: the seed, path
 * and replay path that replay it exactly, where it was found, and what broke.
 */
export interface Regression {
  /** The property's name (its folder under {@link REGRESSIONS_DIR}). */
  readonly property: string;
  /** The engine it failed on; null for a property without a store. It is replayed on every engine. */
  readonly engine: Engine | null;
  readonly seed: number;
  readonly path: string;
  /** The commands' replay path of a model-based property; null for any other. */
  readonly replayPath: string | null;
  /** When it was found (ISO 8601). */
  readonly found: string;
  /** The first line of the error the property threw. */
  readonly message: string;
}

/** A regression read from its file. */
export interface LoadedRegression {
  /** The file, relative to the folder it was loaded from: `<property>/<seed>-<hash>.json`. */
  readonly file: string;
  readonly regression: Regression;
}

/** The folder name of `property`: lower case, every run of other characters than `a-z0-9` a dash. */
export function regressionSlug(property: string): string {
  return property
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

/** `<slug>/<seed>-<first 8 hex of the SHA-256 of path>.json`, relative to the regressions folder. */
export function regressionFile(property: string, counterexample: Pick<Counterexample, "seed" | "path">): string {
  const hash = createHash("sha256").update(counterexample.path).digest("hex").slice(0, 8);
  return join(regressionSlug(property), `${counterexample.seed}-${hash}.json`);
}

/** The {@link Counterexample} that replays `regression`. */
export function counterexampleOf(regression: Regression): Counterexample {
  return { seed: regression.seed, path: regression.path, replayPath: regression.replayPath ?? undefined };
}

/** The first line of the thrown error in fast-check's report (`Got error: …`), else the report's first line. */
export function errorLine(report: string): string {
  const got = /^Got error: (.*)$/m.exec(report)?.[1];
  return (got ?? report.split("\n", 1)[0] ?? "").trim();
}

/**
 * Writes `regression` as `root/<slug>/<seed>-<hash>.json` (see {@link regressionFile}),
 * creating the folder, and returns the file's path relative to `root`. The same case found
 * again overwrites its file.
 */
export function saveRegression(root: string, regression: Regression): string {
  const file = regressionFile(regression.property, regression);
  mkdirSync(join(root, regressionSlug(regression.property)), { recursive: true });
  writeFileSync(join(root, file), `${JSON.stringify(regression, null, 2)}\n`);
  return file;
}

/**
 * Every regression of `property` under `root`, in file name order; none when its folder does
 * not exist. Synchronous, so that a test file can declare one test per regression. Throws,
 * naming the file, on a file that is not a regression of `property`.
 */
export function loadRegressions(root: string, property: string): LoadedRegression[] {
  const folder = regressionSlug(property);
  let names: string[];
  try {
    names = readdirSync(join(root, folder)).filter((name) => name.endsWith(".json"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return names.sort().map((name) => {
    const file = join(folder, name);
    return { file, regression: parseRegression(readFileSync(join(root, file), "utf8"), property, file) };
  });
}

function parseRegression(text: string, property: string, file: string): Regression {
  const bad = (why: string) => new Error(`regression ${file}: ${why}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw bad(`not JSON (${(error as Error).message})`);
  }
  if (typeof value !== "object" || value === null) throw bad("not an object");
  const r = value as Record<string, unknown>;
  if (r["property"] !== property) throw bad(`property ${JSON.stringify(r["property"])}, expected ${JSON.stringify(property)}`);
  if (!Number.isSafeInteger(r["seed"])) throw bad("seed is not an integer");
  if (typeof r["path"] !== "string" || !/^\d+(:\d+)*$/.test(r["path"])) throw bad("path is not a fast-check path");
  if (r["replayPath"] !== null && typeof r["replayPath"] !== "string") throw bad("replayPath is neither a string nor null");
  if (r["engine"] !== null && r["engine"] !== "sqlite" && r["engine"] !== "postgres")
    throw bad("engine is not sqlite, postgres or null");
  return {
    property,
    engine: r["engine"],
    seed: r["seed"] as number,
    path: r["path"],
    replayPath: r["replayPath"],
    found: typeof r["found"] === "string" ? r["found"] : "",
    message: typeof r["message"] === "string" ? r["message"] : "",
  };
}
