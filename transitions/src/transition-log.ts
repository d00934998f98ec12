import { appendFileSync, mkdirSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { threadId } from "node:worker_threads";
import { observeTransitions } from "@verq/core";
import type { AnyStateMachine } from "xstate";
import { ALL_MACHINES } from "./verq-machines.ts";

/** The environment variable that names the directory test processes record their transitions in. */
export const TRANSITION_LOG_ENV = "VERQ_TRANSITION_LOG";

/**
 * Records, in `dir`, every transition the compiled tables of `machines` take in this process:
 * one `machine<TAB>source<TAB>event<TAB>branch` line per transition, the first time it is taken,
 * appended to this process's own file (so parallel test processes never interleave). Only the
 * machines themselves count: a variant a test builds with `provide(...)` is another machine, and
 * what it does proves nothing of the real one. Returns the function that stops recording.
 */
export function recordTransitionsTo(dir: string, machines: readonly AnyStateMachine[] = ALL_MACHINES): () => void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `transitions-${process.pid}-${threadId}.log`);
  const counted = new Set(machines);
  const seen = new Set<string>();
  observeTransitions((machine, transition) => {
    if (!counted.has(machine)) return;
    const line = `${machine.id}\t${transition}`;
    if (seen.has(line)) return;
    seen.add(line);
    appendFileSync(file, `${line}\n`);
  });
  return () => observeTransitions(null);
}

/** The transitions recorded in `dir` by every process, merged. */
export function readTransitionLogs(dir: string): Set<string> {
  const recorded = new Set<string>();
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".log")) continue;
    for (const line of readFileSync(join(dir, name), "utf8").split("\n")) if (line !== "") recorded.add(line);
  }
  return recorded;
}
