import { setup } from "xstate";
import { describe, expect, it } from "vitest";
import { VERQ_MACHINES, machineGraph, rootTransitions } from "../src/index.ts";

describe("rootTransitions", () => {
  it("groups the job machine's fallbacks back by event, in the root's order, with the states they apply in", () => {
    const root = rootTransitions(machineGraph(VERQ_MACHINES.job));
    expect([...root.keys()]).toEqual([
      "job.enqueue",
      "job.claim",
      "job.finish",
      "job.fail",
      "job.heartbeat",
      "job.redrive",
      "job.cancel",
      "job.prune",
    ]);
    expect(root.get("job.enqueue")?.map((t) => [t.edge.guard, t.edge.actions, t.states])).toEqual([
      ["queuePriorityOrKindDiffers", ["refuse:payload-conflict"], ["pending", "leased", "done", "dead"]],
      ["samePayload", ["refuse:already-enqueued"], ["pending", "leased", "done", "dead"]],
      [null, ["refuse:payload-conflict"], ["pending", "leased", "done", "dead"]],
    ]);
    expect(root.get("job.claim")?.map((t) => t.states)).toEqual([["done", "dead"]]);
    expect(root.get("job.redrive")?.map((t) => t.states)).toEqual([["pending", "leased", "done"]]);
    expect(root.get("job.prune")?.map((t) => [t.edge.actions, t.states])).toEqual([
      [["refuse:not-finished"], ["pending", "leased"]],
    ]);
    expect(root.get("job.cancel")?.map((t) => t.states)).toEqual([["done", "dead"]]);
  });

  it("leaves out a root event that every state handles itself, and is empty without root transitions", () => {
    const shadowed = setup({}).createMachine({
      id: "shadowed",
      initial: "a",
      on: { ping: { target: ".b" }, stop: { target: ".a" } },
      states: { a: { on: { ping: "a" } }, b: { on: { ping: "a", stop: "b" } } },
    });
    const root = rootTransitions(machineGraph(shadowed));
    expect([...root.keys()]).toEqual(["stop"]);
    expect(root.get("stop")?.map((t) => [t.edge.target, t.states])).toEqual([["a", ["a"]]]);
    const flat = setup({}).createMachine({ id: "flat", initial: "a", states: { a: { on: { go: "b" } }, b: {} } });
    expect(rootTransitions(machineGraph(flat)).size).toBe(0);
  });
});
