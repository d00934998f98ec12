import { existsSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { STREAM_MACHINES, STREAM_TYPES, VERQ_MACHINES, VERQ_MACHINE_NAMES, machineGraph, machineMermaid } from "@verq/core";
import { runVerq, tempDir } from "@verq/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadCreateMachine, type AnyMachine } from "./support/machine-from-json.ts";

/*
 * `verq viz` as a child process: the files it writes for the visualizer, each read back and
 * compared with the machines of @verq/core; the docs check that fails on a stale diagram;
 * bad options that write nothing.
 */

const NAMES = VERQ_MACHINE_NAMES;
const DOCS = fileURLToPath(new URL("../../../docs/machines.md", import.meta.url));
const CORE_MODULES = fileURLToPath(new URL("../../core/node_modules", import.meta.url));

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
});

function scratch(): string {
  const dir = tempDir("verq-viz-");
  cleanups.push(dir.remove);
  return dir.path;
}

describe("verq viz --out DIR", () => {
  let out: string;
  let printed: { files: { machine: string; kind: string; path: string }[] };

  beforeAll(async () => {
    const dir = tempDir("verq-viz-out-");
    out = join(dir.path, "nested", "viz");
    const run = await runVerq(["viz", "--out", out, "--json"]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    printed = JSON.parse(run.stdout) as typeof printed;
    // The generated modules import xstate, found through a link as a user's project would have it.
    symlinkSync(CORE_MODULES, join(out, "node_modules"), "dir");
    return dir.remove;
  });

  it("exports the machine of every stream type that has one (core's STREAM_MACHINES), and the machine each audit stream's events come from", () => {
    const exported = new Set(printed.files.map((f) => f.machine));
    for (const type of STREAM_TYPES) {
      const entry = STREAM_MACHINES[type];
      expect(exported.has("machine" in entry ? entry.machine : entry.auditOf), type).toBe(true);
    }
    expect([...exported].sort()).toEqual(Object.keys(VERQ_MACHINES).sort());
  });

  it("creates the folder and writes <name>.json, .mmd and .machine.ts for every machine, as --json lists them", () => {
    const expected = NAMES.flatMap((m) => [`${m}.json`, `${m}.mmd`, `${m}.machine.ts`]);
    expect(
      readdirSync(out)
        .filter((f) => f !== "node_modules")
        .sort(),
    ).toEqual([...expected].sort());
    expect(printed.files.map((f) => [f.machine, f.kind, f.path])).toEqual(
      NAMES.flatMap((m) => [
        [m, "json", join(out, `${m}.json`)],
        [m, "mermaid", join(out, `${m}.mmd`)],
        [m, "source", join(out, `${m}.machine.ts`)],
      ]),
    );
  });

  it.each(NAMES)(
    "the %s .json is a machine config: createMachine builds it with the original's states, initial state, events, targets and guards",
    async (name) => {
      const createMachine = await loadCreateMachine();
      const config = JSON.parse(readFileSync(join(out, `${name}.json`), "utf8")) as { id: unknown; initial: unknown };
      expect([config.id, config.initial]).toEqual([name, machineGraph(VERQ_MACHINES[name]).initial]);
      const rebuilt = machineGraph(createMachine(config));
      const original = machineGraph(VERQ_MACHINES[name]);
      expect(rebuilt.states).toEqual(original.states);
      expect(rebuilt.initial).toBe(original.initial);
      const shape = (g: typeof original) => g.transitions.map((t) => [t.source, t.event, t.target, t.targeted, t.guard]);
      expect(shape(rebuilt)).toEqual(shape(original));
      expect(rebuilt).toEqual(original);
    },
  );

  it.each(NAMES)("the %s .machine.ts, imported, is a machine with the original's states and transitions", async (name) => {
    const module = (await import(pathToFileURL(join(out, `${name}.machine.ts`)).href)) as Record<string, AnyMachine>;
    const generated = module[`${name}Machine`];
    expect(generated).toBeDefined();
    expect(machineGraph(generated as AnyMachine)).toEqual(machineGraph(VERQ_MACHINES[name]));
  });

  it.each(NAMES)("the %s .mmd is its Mermaid stateDiagram-v2 with the initial state marked", (name) => {
    const text = readFileSync(join(out, `${name}.mmd`), "utf8");
    expect(text).toBe(machineMermaid(machineGraph(VERQ_MACHINES[name])));
    expect(text).toMatch(/^stateDiagram-v2\n/);
    expect(text).toContain(`  [*] --> ${machineGraph(VERQ_MACHINES[name]).initial}\n`);
  });

  it("writes the files again over an earlier run, human output one line per file", async () => {
    writeFileSync(join(out, "job.mmd"), "stale\n");
    const run = await runVerq(["viz", "--out", out]);
    expect(run.status).toBe(0);
    expect(run.stdout.trim().split("\n")).toEqual(printed.files.map((f) => `wrote ${f.path}`));
    expect(readFileSync(join(out, "job.mmd"), "utf8")).toBe(machineMermaid(machineGraph(VERQ_MACHINES.job)));
  });
});

describe("verq viz refuses bad options and writes nothing", () => {
  it("an --out that is a file, or under a file, is a usage error (exit 2) and the file is untouched", async () => {
    const dir = scratch();
    const file = join(dir, "taken");
    writeFileSync(file, "mine\n");
    for (const out of [file, join(file, "below")]) {
      const run = await runVerq(["viz", "--out", out]);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/^verq: VERQ_INVALID_ARGUMENT: --out .* is not a folder that can be created and written to/);
      expect(run.stdout).toBe("");
    }
    expect(readFileSync(file, "utf8")).toBe("mine\n");
    expect(readdirSync(dir)).toEqual(["taken"]);
  });

  it("neither --out nor --docs, or --check without --docs, is a usage error (exit 2); --json prints it as JSON", async () => {
    const none = await runVerq(["viz", "--json"]);
    expect(none.status).toBe(2);
    expect(JSON.parse(none.stdout)).toEqual({
      error: { code: "VERQ_INVALID_ARGUMENT", message: "give --out DIR, --docs FILE, or both" },
    });
    const dir = scratch();
    const check = await runVerq(["viz", "--out", join(dir, "viz"), "--check"]);
    expect(check.status).toBe(2);
    expect(check.stderr).toContain("--check needs --docs FILE");
    expect(existsSync(join(dir, "viz"))).toBe(false);
  });

  it("a --docs file that does not exist is exit 4; one with a bad marker is exit 2, and --out is not written", async () => {
    const dir = scratch();
    const missing = await runVerq(["viz", "--docs", join(dir, "nope.md"), "--out", join(dir, "viz")]);
    expect(missing.status).toBe(4);
    expect(missing.stderr).toContain("VERQ_FILE_NOT_FOUND");
    const bad = join(dir, "bad.md");
    writeFileSync(bad, "# x\n<!-- verq:viz jobs -->\n<!-- /verq:viz jobs -->\n");
    const run = await runVerq(["viz", "--docs", bad, "--out", join(dir, "viz")]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`line 2 names "jobs", not a machine (${VERQ_MACHINE_NAMES.join(", ")})`);
    expect(readFileSync(bad, "utf8")).toBe("# x\n<!-- verq:viz jobs -->\n<!-- /verq:viz jobs -->\n");
    expect(existsSync(join(dir, "viz"))).toBe(false);
  });
});

describe("verq viz --docs", () => {
  it("docs/machines.md is up to date with the machines (exit 0 of --check); refresh it with verq viz --docs docs/machines.md", async () => {
    const before = readFileSync(DOCS, "utf8");
    const run = await runVerq(["viz", "--docs", DOCS, "--check", "--json"]);
    expect(JSON.parse(run.stdout)).toEqual({
      files: [],
      docs: { path: DOCS, checked: true, blocks: NAMES.map((machine) => ({ machine, stale: false })) },
    });
    expect(run.status).toBe(0);
    expect(readFileSync(DOCS, "utf8")).toBe(before);
  });

  it("--check finds a stale diagram (exit 1, nothing changed); without --check the block is rewritten", async () => {
    const dir = scratch();
    const copy = join(dir, "machines.md");
    const fresh = readFileSync(DOCS, "utf8");
    const stale = fresh.replace("  leased --> done: job.finish [outcomeIsOk]\n", "");
    expect(stale).not.toBe(fresh);
    writeFileSync(copy, stale);

    const check = await runVerq(["viz", "--docs", copy, "--check"]);
    expect(check.status).toBe(1);
    expect(check.stdout).toContain(`${copy}: job stale`);
    expect(check.stdout).toContain(`${copy}: guid up to date`);
    expect(readFileSync(copy, "utf8")).toBe(stale);

    const rewrite = await runVerq(["viz", "--docs", copy]);
    expect(rewrite.status).toBe(0);
    expect(rewrite.stdout).toContain(`${copy}: job rewritten`);
    expect(readFileSync(copy, "utf8")).toBe(fresh);
  });
});
