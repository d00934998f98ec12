import { createActor, createMachine, type AnyStateMachine } from "xstate";
import { describe, expect, it } from "vitest";
import { VERQ_MACHINES, machineGraph, machineJson, type VerqMachineName } from "../src/index.ts";
import { sampleMachine } from "./machine-sample.ts";

const NAMES = Object.keys(VERQ_MACHINES) as VerqMachineName[];

interface TransitionJson {
  readonly target?: string;
  readonly guard?: unknown;
  readonly actions?: readonly unknown[];
  readonly reenter?: boolean;
}

interface NodeJson {
  readonly id?: string;
  readonly initial?: unknown;
  readonly on?: Record<string, readonly TransitionJson[]>;
  readonly always?: readonly TransitionJson[];
  readonly states?: Record<string, NodeJson>;
}

const parse = (machine: AnyStateMachine) => JSON.parse(machineJson(machine)) as NodeJson;

describe("machineJson", () => {
  it.each(NAMES)("writes the %s machine as a config createMachine builds into the same states and transitions", (name) => {
    const config = parse(VERQ_MACHINES[name]);
    expect(config.id).toBe(name);
    expect(typeof config.initial).toBe("string");
    const rebuilt = createMachine(config as never);
    expect(machineGraph(rebuilt)).toEqual(machineGraph(VERQ_MACHINES[name]));
    // A started actor finds its initial state (a `toJSON()` initial, an object, does not).
    const actor = createActor(rebuilt).start();
    expect(actor.getSnapshot().value).toBe(machineGraph(VERQ_MACHINES[name]).initial);
    actor.stop();
  });

  it("writes a negated guard as a not guard naming its operand, and keeps action params and reenter", () => {
    const leased = parse(VERQ_MACHINES.job).states?.leased;
    const finish = leased?.on?.["job.finish"] ?? [];
    expect(finish.map((t) => t.guard)).toEqual([
      { type: "not", params: { guards: ["tokenMatches"] } },
      "outcomeIsOk",
      "outcomeIsPermanent",
      "attemptsExhausted",
      "nextRunAtOrPastDeadline",
      undefined,
    ]);
    expect(finish.map((t) => t.target)).toEqual([undefined, "done", "dead", "dead", "dead", "pending"]);
    expect(finish[2]?.actions).toEqual([{ type: "die", params: { reason: "permanent" } }]);
    expect(finish[0]?.actions).toEqual([{ type: "refuse", params: { refusal: "stale-token" } }]);
    expect(leased?.on?.["job.claim"]?.at(-1)).toEqual({ target: "leased", reenter: true, actions: ["expireLease", "claim"] });
  });

  it("writes eventless transitions as each state's `always` list", () => {
    const states = parse(VERQ_MACHINES.message).states;
    expect(states?.processing?.always?.map((t) => [t.guard, t.target])).toEqual([
      ["rejects", "error"],
      ["isDuplicate", "done"],
      ["isRecorded", "done"],
      ["isSettling", undefined],
    ]);
    expect(states?.done?.always).toBeUndefined();
  });

  it("names a root transition's target as a child (`.key`), and keeps odd ids and state names", () => {
    const config = parse(sampleMachine);
    expect(config.on?.stop).toEqual([{ target: ".done state", actions: ["bump"] }]);
    expect(config.states?.idle?.on?.go?.[1]?.guard).toEqual({ type: "not", params: { guards: ["ready"] } });
    expect(machineGraph(createMachine(config as never))).toEqual(machineGraph(sampleMachine));
  });

  it("writes a static context, and leaves out a context computed from the input", () => {
    const counter = createMachine({ id: "counter", context: { n: 1 }, initial: "a", states: { a: { type: "final" } } });
    expect(parse(counter)).toEqual({ id: "counter", context: { n: 1 }, initial: "a", states: { a: { type: "final" } } });
    expect(parse(VERQ_MACHINES.job)).not.toHaveProperty("context");
  });

  it("ends with one line break", () => {
    const text = machineJson(VERQ_MACHINES.guid);
    expect(text.endsWith("}\n")).toBe(true);
    expect(text.endsWith("\n\n")).toBe(false);
  });
});
