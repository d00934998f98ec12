import { setTimeout as sleep } from "node:timers/promises";
import type { PostgresCost } from "./postgres-cost.ts";
import { startReadyChildren, type ReadyChild } from "./ready-children.ts";
import { since } from "./scenario.ts";

/** How often the parent sums the children's counts, and then asks the database what is left. */
const PROGRESS_POLL_MS = 5;
const REMAINING_POLL_MS = 2;
/** A run that has not drained by then has hung: it fails instead of holding the bench. */
const GIVE_UP_MS = 600_000;

/** What a child printed last (`until-stopped-child.ts`): its count, its peak RSS, and what its run cost when it measured that. */
export interface ChildReport {
  readonly handled: number;
  readonly peakRssBytes: number;
  readonly cost?: PostgresCost;
}

/** The last `handled <n>` a child printed (0 before its first). */
function lastHandled(output: string): number {
  const matches = [...output.matchAll(/^handled (\d+)$/gm)];
  return Number(matches[matches.length - 1]?.[1] ?? 0);
}

/**
 * Starts `count` workers of a baseline (`script`, speaking `until-stopped-child.ts`), lets them
 * go together and times them until they have handled `jobs` jobs between them and `remaining()`
 * (a count in the database) says that every completion has landed: these systems complete in
 * the background, so a handled job is not yet a finished one. Then stops the children (not
 * timed) and checks that they handled exactly `jobs`. A child that fails fails the run; every
 * child is stopped whatever happens. Returns the wall time and each child's report.
 */
export async function drainWithChildren(
  script: string,
  argsFor: (index: number) => readonly string[],
  count: number,
  jobs: number,
  remaining: () => Promise<number>,
): Promise<{ wallMs: number; reports: ChildReport[] }> {
  const children = await startReadyChildren(script, argsFor, count);
  let failure: Error | undefined;
  for (const child of children)
    void child.exited.catch((error: unknown) => (failure ??= error instanceof Error ? error : new Error("a worker failed")));
  const check = (): void => {
    if (failure !== undefined) throw failure;
  };
  let stopped = false;
  const stopAll = async (): Promise<string[]> => {
    stopped = true;
    for (const child of children) child.stop();
    return Promise.all(children.map((c: ReadyChild) => c.exited));
  };
  try {
    const start = performance.now();
    for (const child of children) child.go();
    while (children.reduce((sum, c) => sum + lastHandled(c.output()), 0) < jobs) {
      check();
      if (since(start) > GIVE_UP_MS) throw new Error(`${count} workers did not handle ${jobs} jobs in time`);
      await sleep(PROGRESS_POLL_MS);
    }
    while ((await remaining()) > 0) {
      check();
      if (since(start) > GIVE_UP_MS) throw new Error(`${count} workers did not complete ${jobs} jobs in time`);
      await sleep(REMAINING_POLL_MS);
    }
    const wallMs = since(start);
    const outputs = await stopAll();
    const reports = outputs.map((out) => JSON.parse(out.trim().split("\n").pop() ?? "") as ChildReport);
    const handled = reports.reduce((sum, report) => sum + report.handled, 0);
    if (handled !== jobs) throw new Error(`${count} workers handled ${handled} jobs of ${jobs}`);
    return { wallMs, reports };
  } finally {
    if (!stopped) await stopAll().catch(() => undefined);
  }
}
