import { setup } from "xstate";
import { describe, expect, it } from "vitest";
import { VERQ_MACHINES, machineGraph, machineMermaid, transitionLabel, type MachineGraph } from "../src/index.ts";

/** The arrows of a Mermaid state diagram, `source --> target: label` as [source, target, label]. */
const arrows = (text: string): string[][] =>
  text
    .split("\n")
    .map((line) => /^ {2}(\S+) --> (\S+): (.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [m[1] ?? "", m[2] ?? "", m[3] ?? ""]);

/** The states a diagram declares, `state "name" as id`, as [name, id]. */
const declared = (text: string): string[][] =>
  [...text.matchAll(/^ {2}state "([^"]*)" as (\S+)$/gm)].map((m) => [m[1] ?? "", m[2] ?? ""]);

describe("machineMermaid", () => {
  const job = machineMermaid(machineGraph(VERQ_MACHINES.job));

  it("is a stateDiagram-v2 that declares every state and marks the initial one", () => {
    expect(job.startsWith("stateDiagram-v2\n")).toBe(true);
    expect(declared(job)).toEqual(["new", "pending", "leased", "done", "dead"].map((s) => [s, s]));
    expect(job).toContain("\n  [*] --> new\n");
    expect(job.endsWith("\n")).toBe(true);
  });

  it("draws every transition of the job machine that records or moves, labelled by event and guard, and no refusal", () => {
    expect(arrows(job)).toEqual([
      ["new", "pending", "job.enqueue [else]"],
      ["pending", "leased", "job.claim [isDue]"],
      ["pending", "dead", "job.cancel [else]"],
      ["leased", "dead", "job.claim [attemptsExhausted]"],
      ["leased", "leased", "job.claim [else]"],
      ["leased", "done", "job.finish [outcomeIsOk]"],
      ["leased", "dead", "job.finish [outcomeIsPermanent]"],
      ["leased", "dead", "job.finish [attemptsExhausted]"],
      ["leased", "dead", "job.finish [nextRunAtOrPastDeadline]"],
      ["leased", "pending", "job.finish [else]"],
      ["leased", "leased", "job.fail [else]"],
      ["leased", "leased", "job.heartbeat [else]"],
      ["leased", "dead", "job.cancel [else]"],
      ["done", "done", "job.prune [else]"],
      ["dead", "dead", "job.prune [else]"],
      ["dead", "pending", "job.redrive [else]"],
    ]);
    expect(job).not.toContain("refuse");
  });

  it("draws eventless transitions as `always [guard]`", () => {
    const message = arrows(machineMermaid(machineGraph(VERQ_MACHINES.message)));
    expect(message).toContainEqual(["processing", "error", "always [rejects]"]);
    expect(message).toContainEqual(["processing", "done", "always [isDuplicate]"]);
    expect(message).toContainEqual(["error", "inbox", "message.replay"]);
  });

  it.each(Object.keys(VERQ_MACHINES) as (keyof typeof VERQ_MACHINES)[])(
    "the %s diagram has one arrow per transition that is not a refusal, with its source, target and event",
    (name) => {
      const graph = machineGraph(VERQ_MACHINES[name]);
      const drawn = graph.transitions.filter((t) => !t.refusal);
      const found = arrows(machineMermaid(graph));
      expect(found.map(([source, target, label]) => [source, target, label?.split(" ")[0]])).toEqual(
        drawn.map((t) => [t.source, t.target, t.event]),
      );
      expect(drawn.length).toBeLessThan(graph.transitions.length);
    },
  );

  it("gives odd state names valid, distinct ids and escapes what Mermaid would read as syntax", () => {
    const odd = setup({ guards: { "a;b#c": () => true } }).createMachine({
      id: "odd",
      initial: "in progress",
      states: {
        "in progress": { on: { go: { guard: "a;b#c", target: "in-progress" } } },
        "in-progress": { on: { back: "in progress" } },
      },
    });
    const text = machineMermaid(machineGraph(odd));
    expect(declared(text)).toEqual([
      ["in progress", "s_in_progress"],
      ["in-progress", "s_in_progress_2"],
    ]);
    expect(arrows(text)).toEqual([
      ["s_in_progress", "s_in_progress_2", "go [a#59;b#35;c]"],
      ["s_in_progress_2", "s_in_progress", "back"],
    ]);
    expect(text).toContain("[*] --> s_in_progress\n");
  });
});

describe("transitionLabel", () => {
  const edge = (guard: string | null): MachineGraph["transitions"][number] => ({
    source: "leased",
    event: "job.finish",
    target: "done",
    targeted: true,
    guard,
    actions: ["complete"],
    refusal: false,
    fallback: false,
  });

  it("is the event, with the guard in brackets when there is one", () => {
    expect(transitionLabel(edge("outcomeIsOk"))).toBe("job.finish [outcomeIsOk]");
    expect(transitionLabel(edge("!tokenMatches"))).toBe("job.finish [!tokenMatches]");
    expect(transitionLabel(edge(null))).toBe("job.finish");
  });
});
