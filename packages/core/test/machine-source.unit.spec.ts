import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import type { AnyStateMachine } from "xstate";
import { afterAll, describe, expect, it } from "vitest";
import { VERQ_MACHINES, machineGraph, machineSource, type VerqMachineName } from "../src/index.ts";

const NAMES = Object.keys(VERQ_MACHINES) as VerqMachineName[];

// The generated modules live outside the workspace, as a user's would; their `xstate` import
// resolves through a link to this package's node_modules.
const dir = mkdtempSync(join(tmpdir(), "verq-machine-source-"));
symlinkSync(fileURLToPath(new URL("../node_modules", import.meta.url)), join(dir, "node_modules"), "dir");
const files = NAMES.map((name) => {
  const file = join(dir, `${name}.machine.ts`);
  writeFileSync(file, machineSource(machineGraph(VERQ_MACHINES[name])));
  return file;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("machineSource", () => {
  it.each(NAMES)(
    "the %s module, imported, is a machine whose states, events, targets, guards and actions are the original's",
    async (name) => {
      const module = (await import(pathToFileURL(join(dir, `${name}.machine.ts`)).href)) as Record<string, AnyStateMachine>;
      const generated = module[`${name}Machine`];
      expect(generated).toBeDefined();
      expect(machineGraph(generated as AnyStateMachine)).toEqual(machineGraph(VERQ_MACHINES[name]));
    },
  );

  it("writes root fallbacks once on the root, in the definition's order, and imports only createMachine", () => {
    const source = machineSource(machineGraph(VERQ_MACHINES.job));
    expect(source.match(/^import .*$/gm)).toEqual(['import { createMachine } from "xstate";']);
    expect(source.match(/createMachine\(/g)).toHaveLength(1);
    const root = source.slice(source.indexOf("  on: {"), source.indexOf("  states: {"));
    expect([...root.matchAll(/^ {4}"(job\.[a-z]+)":/gm)].map((m) => m[1])).toEqual([
      "job.enqueue",
      "job.claim",
      "job.finish",
      "job.heartbeat",
      "job.redrive",
      "job.cancel",
      "job.prune",
    ]);
    expect(source).toContain('{ guard: "!tokenMatches", actions: [{ type: "refuse", params: { refusal: "stale-token" } }] },');
    expect(source).toContain(
      '{ guard: "!finishedAtOrBeforeCutoff", actions: [{ type: "refuse", params: { refusal: "too-recent" } }] },',
    );
  });

  it("type-checks under strict TypeScript with xstate's own types", () => {
    const program = ts.createProgram(files, {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: [],
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(problems).toEqual([]);
  });
});
