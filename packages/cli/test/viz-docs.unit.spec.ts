import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { VERQ_MACHINES, VERQ_MACHINE_NAMES, isVerqError, machineGraph } from "@verq/core";
import { beforeAll, describe, expect, it } from "vitest";
import { refusalTable } from "../src/viz/refusal-table.ts";
import { refreshVizBlocks, vizBlockContent } from "../src/viz/viz-docs.ts";
import { loadCreateMachine, type AnyMachine } from "./support/machine-from-json.ts";

const DOCS = readFileSync(fileURLToPath(new URL("../../../docs/machines.md", import.meta.url)), "utf8");

let createMachine: (config: object) => AnyMachine;
beforeAll(async () => {
  createMachine = await loadCreateMachine();
});

describe("refreshVizBlocks", () => {
  it("finds docs/machines.md stale when a machine changes: a new transition in the job machine's code", () => {
    const config = VERQ_MACHINES.job.config as { states: Record<string, object> };
    const changed = createMachine({ ...config, states: { ...config.states, done: { on: { "job.redrive": "pending" } } } });
    const refreshed = refreshVizBlocks(DOCS, (name) => vizBlockContent(name === "job" ? changed : VERQ_MACHINES[name]));
    // docs/machines.md has one block for each machine that decides a stream, in core's order.
    expect(refreshed.blocks).toEqual(VERQ_MACHINE_NAMES.map((machine) => ({ machine, stale: machine === "job" })));
    expect(refreshed.text).toContain("  done --> pending: job.redrive\n");
    expect(refreshed.text).not.toBe(DOCS);
  });

  it("keeps everything outside the markers, and a refreshed text is up to date", () => {
    const text = "# Title\n\nbefore\n<!-- verq:viz message -->\nold\n<!-- /verq:viz message -->\nafter\n";
    const once = refreshVizBlocks(text);
    expect(once.blocks).toEqual([{ machine: "message", stale: true }]);
    expect(once.text).toBe(
      `# Title\n\nbefore\n<!-- verq:viz message -->\n${vizBlockContent(VERQ_MACHINES.message)}<!-- /verq:viz message -->\nafter\n`,
    );
    const twice = refreshVizBlocks(once.text);
    expect(twice.blocks).toEqual([{ machine: "message", stale: false }]);
    expect(twice.text).toBe(once.text);
  });

  it.each([
    ["no markers", "# nothing to do\n", "no <!-- verq:viz NAME -->"],
    ["a block never closed", "<!-- verq:viz job -->\n", "the block of job opened on line 1 is never closed"],
    ["a block inside another", "<!-- verq:viz job -->\n<!-- verq:viz guid -->\n", "line 2 opens guid inside the block of job"],
    ["a close of another block", "<!-- verq:viz job -->\n<!-- /verq:viz guid -->\n", "line 2 closes guid, which is not open"],
    ["an unknown machine", "<!-- verq:viz nope -->\n<!-- /verq:viz nope -->\n", 'line 1 names "nope", not a machine'],
  ])("%s is VERQ_INVALID_ARGUMENT", (_, text, message) => {
    let thrown: unknown;
    try {
      refreshVizBlocks(text);
    } catch (error) {
      thrown = error;
    }
    expect(isVerqError(thrown, "VERQ_INVALID_ARGUMENT")).toBe(true);
    expect((thrown as Error).message).toContain(message);
  });
});

describe("refusalTable", () => {
  it("lists the job machine's own refusals by state, then each root fallback once with the states it applies in", () => {
    const rows = refusalTable(machineGraph(VERQ_MACHINES.job)).trim().split("\n");
    expect(rows.slice(0, 2)).toEqual(["| state | event | guard | refusal |", "|---|---|---|---|"]);
    expect(rows).toContain("| leased | `job.finish` | `!tokenMatches` | `stale-token` |");
    expect(rows).toContain("| pending | `job.claim` |  | `not-due` |");
    expect(rows.slice(-10)).toEqual([
      "| any other: pending, leased, done, dead | `job.enqueue` | `queuePriorityOrKindDiffers` | `payload-conflict` |",
      "| any other: pending, leased, done, dead | `job.enqueue` | `samePayload` | `already-enqueued` |",
      "| any other: pending, leased, done, dead | `job.enqueue` |  | `payload-conflict` |",
      "| any other: done, dead | `job.claim` |  | `not-claimable` |",
      "| any other: pending, done, dead | `job.finish` |  | `not-leased` |",
      "| any other: pending, done, dead | `job.fail` |  | `not-leased` |",
      "| any other: pending, done, dead | `job.heartbeat` |  | `not-leased` |",
      "| any other: pending, leased, done | `job.redrive` |  | `not-dead` |",
      "| any other: done, dead | `job.cancel` |  | `not-cancellable` |",
      "| any other: pending, leased | `job.prune` |  | `not-finished` |",
    ]);
    const refusals = machineGraph(VERQ_MACHINES.job).transitions.filter((t) => t.refusal);
    const fallbackRows = rows.filter((r) => r.startsWith("| any other"));
    expect(rows.length - 2 - fallbackRows.length).toBe(refusals.filter((t) => !t.fallback).length);
  });

  it("escapes | in a guard so that it stays one cell, and says (none) for a machine that refuses nothing", () => {
    const config = {
      id: "m",
      initial: "a",
      states: {
        a: { on: { go: [{ guard: "x || y", actions: { type: "refuse", params: { refusal: "no" } } }, { target: "b" }] } },
        b: {},
      },
    };
    expect(refusalTable(machineGraph(createMachine(config)))).toContain("| a | `go` | `x \\|\\| y` | `no` |");
    const plain = createMachine({ id: "p", initial: "a", states: { a: { on: { go: "b" } }, b: {} } });
    expect(refusalTable(machineGraph(plain))).toBe("(none)\n");
  });
});
