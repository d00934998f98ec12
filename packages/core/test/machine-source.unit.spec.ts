import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { AnyStateMachine } from "xstate";
import { afterAll, describe, expect, it } from "vitest";
import { VERQ_MACHINES, machineGraph, machineSource } from "../src/index.ts";
import { MACHINE_NAMES as NAMES, writeMachineModules } from "./machine-source-fixtures.ts";

const { dir, remove } = writeMachineModules();
afterAll(remove);

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

  it("writes root fallbacks once on the root, in the definition's order, and imports only createMachine and not", () => {
    const source = machineSource(machineGraph(VERQ_MACHINES.job));
    expect(source.match(/^import .*$/gm)).toEqual(['import { createMachine, not } from "xstate";']);
    expect(source.match(/createMachine\(/g)).toHaveLength(1);
    const root = source.slice(source.indexOf("  on: {"), source.indexOf("  states: {"));
    expect([...root.matchAll(/^ {4}"(job\.[a-z]+)":/gm)].map((m) => m[1])).toEqual([
      "job.enqueue",
      "job.claim",
      "job.finish",
      "job.fail",
      "job.heartbeat",
      "job.redrive",
      "job.cancel",
      "job.prune",
    ]);
    expect(source).toContain(
      '{ guard: not("tokenMatches"), actions: [{ type: "refuse", params: { refusal: "stale-token" } }] },',
    );
    expect(source).toContain(
      '{ guard: not("finishedAtOrBeforeCutoff"), actions: [{ type: "refuse", params: { refusal: "too-recent" } }] },',
    );
    expect(source).not.toContain('"!');
  });

  it("writes and/or guards with xstate's and() and or(), importing each only where a guard uses it", () => {
    const graph = machineGraph(VERQ_MACHINES.queue);
    const [first, ...rest] = graph.transitions;
    if (first === undefined) throw new Error("the queue machine has no transition");
    const source = machineSource({ ...graph, transitions: [{ ...first, guard: "a || !b && c" }, ...rest] });
    expect(source.match(/^import .*$/gm)).toEqual(['import { createMachine, and, not, or } from "xstate";']);
    expect(source).toContain('guard: or(["a", and([not("b"), "c"])])');
    expect(machineSource(graph).match(/^import .*$/gm)).toEqual(['import { createMachine } from "xstate";']);
  });
});
