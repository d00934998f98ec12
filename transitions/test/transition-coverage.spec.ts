import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { assign, setup } from "xstate";
import { compileMachineTable, machineGraph } from "@verq/core";
import { enumerateTransitions } from "../src/enumerate-transitions.ts";
import { runRecordedTests } from "../src/run-recorded-tests.ts";
import { formatCoverage, isComplete, transitionCoverage, transitionName } from "../src/transition-coverage.ts";
import { readTransitionLogs, recordTransitionsTo } from "../src/transition-log.ts";
import { ALL_MACHINES } from "../src/verq-machines.ts";

const CORE_TESTS = new URL("../../packages/core/test", import.meta.url);

type ToyEvent = { type: "go"; n: number } | { type: "stop" };

/** A small machine with a guarded state transition, a root fallback reached when that guard fails, and an eventless one. */
const toy = setup({
  types: { context: {} as { n: number }, events: {} as ToyEvent },
  guards: { big: ({ event }) => event.type === "go" && event.n > 10, zero: ({ context }) => context.n === 0 },
  actions: { take: assign(({ event }) => ({ n: event.type === "go" ? event.n : 0 })) },
}).createMachine({
  id: "toy",
  context: { n: 1 },
  initial: "idle",
  on: { go: { actions: "take" }, stop: { target: ".idle" } },
  states: {
    idle: { on: { go: { guard: "big", target: "busy", actions: "take" } } },
    busy: { always: { guard: "zero", target: "idle" } },
  },
});

describe("transition enumeration (xstate/graph)", () => {
  it("covers every machine the core defines: one per *.machine.ts file", () => {
    const files = readdirSync(new URL("../../packages/core/src", import.meta.url)).filter((f) => f.endsWith(".machine.ts"));
    expect(ALL_MACHINES.map((m) => `${m.id}.machine.ts`).sort()).toEqual(files.sort());
  });

  it("agrees with the machines' own graph (the one verq viz draws): the same state, event, guard and target, in order", () => {
    for (const machine of ALL_MACHINES) {
      const enumerated = enumerateTransitions(machine).map((t) => [t.source, t.event, t.guard, t.target]);
      const graph = machineGraph(machine).transitions.map((e) => [e.source, e.event, e.guard, e.target]);
      expect(enumerated.sort(), machine.id).toEqual(graph.sort());
    }
  });

  it("lists each guard branch, the fallbacks a state reaches when its own guards fail, and the eventless transitions", () => {
    expect(enumerateTransitions(toy).map(transitionName)).toEqual([
      "idle --go #0 [big]--> busy: take",
      "idle --go #1--> idle: take (fallback)",
      "idle --stop #0--> idle: (nothing) (fallback)",
      "busy --go #0--> busy: take (fallback)",
      "busy --stop #0--> idle: (nothing) (fallback)",
      "busy --always #0 [zero]--> idle: (nothing)",
    ]);
  });
});

describe("transition recording", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("records what a compiled table takes, and the coverage names every transition it did not take", () => {
    const dir = mkdtempSync(join(tmpdir(), "verq-transitions-test-"));
    dirs.push(dir);
    const step = compileMachineTable<{ n: number }, ToyEvent>(toy);
    const stop = recordTransitionsTo(dir, [toy]);
    try {
      const busy = step({ value: "idle", context: { n: 1 } }, { type: "go", n: 11 });
      expect(busy.value).toBe("busy");
      // A variant is another machine: what it takes is not recorded for the real one.
      compileMachineTable<{ n: number }, ToyEvent>(toy.provide({}))({ value: "idle", context: { n: 1 } }, { type: "go", n: 1 });
      expect(step(busy, { type: "go", n: 0 }).value).toBe("idle");
    } finally {
      stop();
    }
    step({ value: "idle", context: { n: 1 } }, { type: "stop" });

    const coverage = transitionCoverage(enumerateTransitions(toy), readTransitionLogs(dir));
    expect(isComplete(coverage)).toBe(false);
    expect(coverage.machines.map((m) => [m.covered, m.total])).toEqual([[3, 6]]);
    expect(coverage.machines[0]?.uncovered.map(transitionName)).toEqual([
      "idle --go #1--> idle: take (fallback)",
      "idle --stop #0--> idle: (nothing) (fallback)",
      "busy --stop #0--> idle: (nothing) (fallback)",
    ]);
    expect(formatCoverage(coverage)).toContain("uncovered: idle --go #1--> idle: take (fallback)");
  });

  it("reports a recorded transition the enumeration does not know", () => {
    const coverage = transitionCoverage(enumerateTransitions(toy), new Set(["toy\tidle\tgo\t7"]));
    expect(coverage.unknown).toEqual(["toy\tidle\tgo\t7"]);
    expect(isComplete(coverage)).toBe(false);
  });
});

/** The core's unit tests of each machine: the files named after one (`job.machine.unit.spec.ts`, `job.prune.unit.spec.ts`). */
function machineUnitTests(): string[] {
  const ids = ALL_MACHINES.map((m) => `${m.id}.`);
  return readdirSync(CORE_TESTS)
    .filter((f) => f.endsWith(".unit.spec.ts") && ids.some((id) => f.startsWith(id)))
    .map((f) => `packages/core/test/${f}`);
}

describe("every transition of every machine is taken by a core unit test", () => {
  it("runs the unit tests of each machine with recording on: every transition is covered", { timeout: 300_000 }, async () => {
    const files = machineUnitTests();
    expect(files).toContain("packages/core/test/job.machine.unit.spec.ts");
    const run = await runRecordedTests(files, { quiet: true });
    expect(run.exitCode, run.output.slice(-4_000)).toBe(0);
    const coverage = transitionCoverage(ALL_MACHINES.flatMap(enumerateTransitions), run.recorded);
    expect(isComplete(coverage), formatCoverage(coverage)).toBe(true);
  });
});
