/**
 * The child's side of a baseline's worker process that runs until it is stopped (graphile-worker
 * and pg-boss workers do not end when their queue is empty): "ready" once started up, work from
 * "go" on, its count of handled jobs printed as it grows, and on SIGTERM a graceful stop and one
 * JSON line with the final count and peak RSS. The parent's side is `drainWithChildren`.
 */
import readline from "node:readline";

/** How often a child prints its count while it changes. */
const PROGRESS_MS = 20;

/** Prints "ready" and resolves when the parent sends "go". */
export async function readyThenGo(): Promise<void> {
  process.stdout.write("ready\n");
  const input = readline.createInterface({ input: process.stdin });
  for await (const line of input) if (line.trim() === "go") break;
  input.close();
}

/**
 * Prints `handled <n>` every few milliseconds while `handled()` grows, and on SIGTERM runs
 * `stop` (the system's graceful shutdown), prints `{ handled, peakRssBytes }` with what
 * `more()` adds (taken before `stop`) and exits with 0 (or with 1 when `stop` fails).
 */
export function reportUntilStopped(
  handled: () => number,
  stop: () => Promise<void>,
  more: () => Record<string, unknown> = () => ({}),
): void {
  let printed = -1;
  const progress = setInterval(() => {
    const now = handled();
    if (now !== printed) process.stdout.write(`handled ${(printed = now)}\n`);
  }, PROGRESS_MS);
  process.once("SIGTERM", () => {
    clearInterval(progress);
    const extra = more();
    stop().then(
      () => {
        const report = { handled: handled(), peakRssBytes: process.resourceUsage().maxRSS * 1024, ...extra };
        process.stdout.write(`${JSON.stringify(report)}\n`, () => process.exit(0));
      },
      (error: unknown) => {
        process.stderr.write(`stop failed: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
  });
}
