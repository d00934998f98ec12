import { describe, expect, it } from "vitest";
import { VERQ_MACHINES, machineGraph, machineJson, type VerqMachineName } from "../src/index.ts";
import { driveMachineJson } from "./machine-json-drive.ts";

const NAMES = Object.keys(VERQ_MACHINES) as VerqMachineName[];

type Config = { states: Record<string, { on?: Record<string, Record<string, unknown>[]>; always?: Record<string, unknown>[] }> };

/** The JSON of `name` with one change made to its config. */
function changed(name: VerqMachineName, change: (config: Config) => void): string {
  const config = JSON.parse(machineJson(VERQ_MACHINES[name])) as Config;
  change(config);
  return JSON.stringify(config);
}

const list = (config: Config, state: string, event: string) => {
  const found = event === "always" ? config.states[state]?.always : config.states[state]?.on?.[event];
  if (found === undefined) throw new Error(`no ${event} in ${state}`);
  return found;
};

describe("a machine rebuilt from its machineJson, with the original's implementations, runs as the original", () => {
  it.each(NAMES)("the %s machine: every transition of the original, driven with planned guard answers", (name) => {
    const report = driveMachineJson(name, machineJson(VERQ_MACHINES[name]), true);
    expect(report.differences).toEqual([]);
    // Every transition of the graph, root fallbacks once per state they apply in and eventless ones included.
    const all = machineGraph(VERQ_MACHINES[name]).transitions.map((_, index) => index);
    expect(all.length).toBeGreaterThan(0);
    expect(report.total).toBe(all.length);
    expect([...report.exercised].sort((a, b) => a - b)).toEqual(all);
    expect(report.runs).toBe(all.length);
  });

  it.each(NAMES)("the %s machine: the same commands with the real guards end in the same states and contexts", (name) => {
    const report = driveMachineJson(name, machineJson(VERQ_MACHINES[name]), false);
    expect(report.differences).toEqual([]);
  });
});

describe("the runs find a JSON that lost part of the machine", () => {
  const differs = (name: VerqMachineName, json: string) => driveMachineJson(name, json, true).differences.length;

  it("a lost transition", () => {
    expect(
      differs(
        "job",
        changed("job", (c) => list(c, "leased", "job.finish").splice(2, 1)),
      ),
    ).toBeGreaterThan(0);
  });

  it("a lost guard, or a negated guard written as its operand", () => {
    expect(
      differs(
        "lock",
        changed("lock", (c) => delete list(c, "held", "lock.release")[0]?.guard),
      ),
    ).toBeGreaterThan(0);
    expect(
      differs(
        "job",
        changed("job", (c) => Object.assign(list(c, "dead", "job.redrive")[0] ?? {}, { guard: "noteIsValid" })),
      ),
    ).toBeGreaterThan(0);
  });

  it("a changed or lost target, and a lost eventless transition", () => {
    expect(
      differs(
        "job",
        changed("job", (c) => Object.assign(list(c, "leased", "job.finish")[1] ?? {}, { target: "dead" })),
      ),
    ).toBeGreaterThan(0);
    expect(
      differs(
        "guid",
        changed("guid", (c) => delete list(c, "SENT", "guid.record")[3]?.target),
      ),
    ).toBeGreaterThan(0);
    expect(
      differs(
        "message",
        changed("message", (c) => list(c, "processing", "always").splice(1, 1)),
      ),
    ).toBeGreaterThan(0);
  });

  it("a lost action or action param", () => {
    expect(
      differs(
        "queue",
        changed("queue", (c) => delete list(c, "unlimited", "queue.setLimit")[1]?.actions),
      ),
    ).toBeGreaterThan(0);
    const refusal = (c: Config) => list(c, "held", "lock.acquire")[0]?.actions as { params: { refusal: string } }[];
    expect(
      differs(
        "lock",
        changed("lock", (c) => Object.assign(refusal(c)[0]?.params ?? {}, { refusal: "x" })),
      ),
    ).toBeGreaterThan(0);
  });
});
