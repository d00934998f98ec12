import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ENGINES, createTestDatabase, engineAvailable, runVerq, tempDir, type VerqRun } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";

/*
 * The CLI loads what a command needs when that command runs, never before parsing: `--help`
 * loads no store, no HTTP server or client and no validator; `jobs stats` loads the store but
 * no HTTP server or client and no validator. Proven by the list of modules the process loaded
 * (recorded by support/record-modules.mjs), not by a timing.
 */

const RECORDER = new URL("./support/record-modules.mjs", import.meta.url).href;

/** Runs `verq` from the sources as a child process; resolves to its run and the URLs of the modules it loaded. */
async function verqLoading(args: readonly string[]): Promise<{ run: VerqRun; modules: string[] }> {
  const dir = tempDir("verq-modules-");
  try {
    const log = join(dir.path, "modules.log");
    const run = await runVerq(args, {
      // From the sources, never the test run's bundle: each module must be seen as the file it is.
      VERQ_CLI_BUNDLE: "",
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import=${RECORDER}`,
      VERQ_MODULE_LOG: log,
    });
    return { run, modules: readFileSync(log, "utf8").split("\n").filter(Boolean) };
  } finally {
    dir.remove();
  }
}

/** The npm packages among `modules` (`fastify`, `@fastify/error`, …), by name. */
function packagesOf(modules: readonly string[]): Set<string> {
  const names = modules.map((url) => /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1]);
  return new Set(names.filter((name) => name !== undefined));
}

/** Whether `modules` holds a source or built file of the workspace package `name` (`store` for @verq/store). */
const loadsWorkspacePackage = (modules: readonly string[], name: string): boolean =>
  modules.some((url) => url.includes(`/packages/${name}/`) && !url.includes("/node_modules/"));

const HEAVY_FOR_HELP = ["fastify", "undici", "zod", "prom-client", "pino", "kysely", "better-sqlite3", "pg", "xstate"] as const;
const EDGES = ["fastify", "undici", "zod", "prom-client", "pino"] as const;

describe("the CLI loads a command's modules only when the command runs", () => {
  it.each([
    [["--help"]],
    [["jobs", "--help"]],
    [["relay", "--help"]],
    [["files", "consume", "--help"]],
    [["metrics", "--help"]],
    [["viz", "--help"]],
  ])(
    "verq %j loads commander and none of the store, kysely, xstate, fastify, undici, zod, prom-client, pino or a database driver",
    async (args) => {
      const { run, modules } = await verqLoading(args);
      expect(run.status).toBe(0);
      expect(run.stdout).toContain("Usage: verq");
      const packages = packagesOf(modules);
      expect(packages.has("commander")).toBe(true);
      expect(HEAVY_FOR_HELP.filter((name) => packages.has(name))).toEqual([]);
      expect(loadsWorkspacePackage(modules, "store")).toBe(false);
      expect(loadsWorkspacePackage(modules, "core")).toBe(false);
    },
  );

  it("verq viz --out loads @verq/core and xstate, and none of the store, kysely, a database driver or an HTTP edge", async () => {
    const dir = tempDir("verq-viz-modules-");
    try {
      const { run, modules } = await verqLoading(["viz", "--out", dir.path]);
      expect(run.status).toBe(0);
      const packages = packagesOf(modules);
      expect(loadsWorkspacePackage(modules, "core")).toBe(true);
      expect(packages.has("xstate")).toBe(true);
      expect(loadsWorkspacePackage(modules, "store")).toBe(false);
      expect(["kysely", "better-sqlite3", "pg", ...EDGES].filter((name) => packages.has(name))).toEqual([]);
    } finally {
      dir.remove();
    }
  });

  it("a usage error (an unknown option) is found before anything heavy is loaded", async () => {
    const { run, modules } = await verqLoading(["jobs", "stats", "--db", "x.sqlite", "--no-such-option"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("unknown option");
    expect(HEAVY_FOR_HELP.filter((name) => packagesOf(modules).has(name))).toEqual([]);
  });
});

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] verq jobs stats`, () => {
    it("loads the store, kysely and the engine's driver, and no fastify, undici, zod or pino", async () => {
      const database = await createTestDatabase(engine, "stats.sqlite");
      cleanups.push(() => database.dispose());
      const enqueued = await runVerq(["jobs", "enqueue", "--db", database.db, "--id", "a-1", "--payload", "{}"]);
      expect(enqueued.status).toBe(0);
      const { run, modules } = await verqLoading(["jobs", "stats", "--db", database.db]);
      expect(run.status).toBe(0);
      expect(run.stdout).toContain("pending=1 leased=0 done=0 dead=0");
      const packages = packagesOf(modules);
      expect(loadsWorkspacePackage(modules, "store")).toBe(true);
      expect(packages.has("kysely")).toBe(true);
      expect(packages.has(engine === "sqlite" ? "better-sqlite3" : "pg")).toBe(true);
      expect(EDGES.filter((name) => packages.has(name))).toEqual([]);
      if (engine === "sqlite") expect(packages.has("pg")).toBe(false);
    });
  });
}
