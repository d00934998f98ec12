import { and, not, or } from "xstate";
import { describe, expect, it } from "vitest";
import { VERQ_MACHINES, machineGraph } from "../src/index.ts";
import { guardName } from "../src/machine-graph.ts";

describe("machineGraph", () => {
  it("lists the job machine's states from its definition, with the initial one", () => {
    const graph = machineGraph(VERQ_MACHINES.job);
    expect(graph.id).toBe("job");
    expect(graph.initial).toBe("new");
    expect(graph.states).toEqual(["new", "pending", "leased", "done", "dead"]);
  });

  it("reads each transition's event, target, guard and actions", () => {
    const { transitions } = machineGraph(VERQ_MACHINES.job);
    const finishes = transitions.filter((t) => t.source === "leased" && t.event === "job.finish");
    expect(finishes.map((t) => [t.guard, t.target, t.refusal])).toEqual([
      ["!tokenMatches", "leased", true],
      ["outcomeIsOk", "done", false],
      ["outcomeIsPermanent", "dead", false],
      ["attemptsExhausted", "dead", false],
      ["nextRunAtOrPastDeadline", "dead", false],
      [null, "pending", false],
    ]);
    expect(finishes[0]?.actions).toEqual(["refuse:stale-token"]);
    expect(finishes[0]?.targeted).toBe(false);
    const reclaim = transitions.find((t) => t.source === "leased" && t.event === "job.claim" && t.guard === null);
    expect(reclaim).toMatchObject({ target: "leased", targeted: true, actions: ["expireLease", "claim"] });
  });

  it("lists a root fallback once per state that has no transition of its own for the event", () => {
    const { transitions } = machineGraph(VERQ_MACHINES.job);
    const redrives = transitions.filter((t) => t.event === "job.redrive");
    expect(redrives.filter((t) => t.fallback).map((t) => t.source)).toEqual(["pending", "leased", "done"]);
    expect(redrives.filter((t) => !t.fallback && t.source === "new").map((t) => t.actions)).toEqual([["refuse:unknown-job"]]);
  });

  it("reads eventless transitions as `always`", () => {
    const { transitions } = machineGraph(VERQ_MACHINES.message);
    expect(transitions.some((t) => t.event === "always" && t.targeted)).toBe(true);
  });

  it("reads the guid machine's states", () => {
    const graph = machineGraph(VERQ_MACHINES.guid);
    expect(graph.initial).toBe("NEW");
    expect(graph.states).toEqual(["NEW", "RECEIVED", "SENT", "DONE", "UNKNOWN", "FAILED"]);
  });
});

describe("guardName", () => {
  it("names not(), and() and or() guards by what they check, also when a bundler renamed their functions", () => {
    const renamed = <T extends object>(guard: T, name: string): T => Object.defineProperty(guard, "name", { value: name });
    expect(guardName(renamed(not("tokenMatches"), "not2"))).toBe("!tokenMatches");
    expect(guardName(renamed(and(["a", not("b")]), "and2"))).toBe("a && !b");
    expect(guardName(renamed(or(["a", "b"]), "or2"))).toBe("a || b");
    expect(guardName("isDue")).toBe("isDue");
    expect(guardName({ type: "isDue", params: {} })).toBe("isDue");
  });

  it("names the higher-order guards of another copy of xstate by their checks' names, bundled or not", () => {
    // What a machine built with a service's own xstate carries, as the bundled CLI reads it.
    const foreign = (check: string, guards: unknown[]) =>
      Object.assign(function guard() {}, { guards, check: Object.defineProperty(function () {}, "name", { value: check }) });
    expect(guardName(foreign("checkNot", ["hasTitle"]))).toBe("!hasTitle");
    expect(guardName(foreign("checkNot2", ["hasTitle"]))).toBe("!hasTitle");
    expect(guardName(foreign("checkAnd", ["a", "b"]))).toBe("a && b");
    expect(guardName(foreign("checkAnd13", ["a", "b"]))).toBe("a && b");
    expect(guardName(foreign("checkOr", ["a", "b"]))).toBe("a || b");
    expect(guardName(foreign("checkOr2", ["a", "b"]))).toBe("a || b");
    // This copy's own checks are known by identity, whatever a minifier named them.
    const checks = [not("a"), and(["a"]), or(["a"])].map((g) => (g as unknown as { check: { name: string } }).check);
    const names = checks.map((check) => check.name);
    try {
      for (const check of checks) Object.defineProperty(check, "name", { value: "m" });
      expect([guardName(not("t")), guardName(and(["a", "b"])), guardName(or(["a", "b"]))]).toEqual(["!t", "a && b", "a || b"]);
    } finally {
      checks.forEach((check, i) => Object.defineProperty(check, "name", { value: names[i] }));
    }
    // Anything else with operands is named by its own function.
    expect(guardName(foreign("checkNothing", ["a"]))).toBe("guard");
    expect(guardName(foreign("xcheckNot", ["a"]))).toBe("guard");
    expect(guardName(foreign("checkNotx", ["a"]))).toBe("guard");
  });
});
