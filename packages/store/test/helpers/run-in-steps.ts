import { expect } from "vitest";
import { openBarrier } from "./stdin-barrier.ts";
import type { TsChild } from "./run-ts-child.ts";

/** How a run in steps ended: its wall time and what every worker printed, for failure messages. */
export interface StepsRun {
  /** Seconds from the first step opened to the last worker's exit. */
  readonly seconds: number;
  /** Each worker's name with its stdout and stderr, one line each. */
  readonly diagnostics: string;
}

/**
 * Opens the barriers `steps` for every child at once, in order (the last one ends their stdin;
 * see stdin-barrier.ts), then expects every child to exit 0 after its summary line `done {...}`.
 * Each barrier waits `barrierMs` for the slowest child, the exits `exitMs`.
 */
export async function runInSteps(
  children: readonly TsChild[],
  names: readonly string[],
  steps: readonly string[],
  { barrierMs, exitMs }: { barrierMs: number; exitMs: number },
): Promise<StepsRun> {
  let started = Date.now();
  for (const [i, step] of steps.entries()) {
    await openBarrier(children, step, { timeoutMs: barrierMs, last: i === steps.length - 1 });
    if (i === 0) started = Date.now();
  }
  const codes = await Promise.all(children.map((c) => c.exited(exitMs)));
  const seconds = (Date.now() - started) / 1000;
  const diagnostics = children.map((c, i) => `${names[i]}: ${c.stdout().trim()} ${c.stderr().trim()}`).join("\n");
  expect(codes, diagnostics).toEqual(children.map(() => 0));
  for (const c of children) expect(c.stdout(), diagnostics).toMatch(/^done \{.*\}$/m);
  return { seconds, diagnostics };
}
