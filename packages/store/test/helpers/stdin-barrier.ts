import readline from "node:readline";
import type { TsChild } from "./run-ts-child.ts";

/** The child's side of a barrier over stdin: see {@link stdinGate}. */
export interface StdinGate {
  /** Prints `name` on a line of its own, then waits for the next `go` line on stdin; rejects if stdin ends first. */
  pass(name: string): Promise<void>;
  /** Stops reading stdin, so that the process may exit. */
  close(): void;
}

/**
 * A child process's gate for barriers its parent opens with {@link openBarrier}: the child says
 * where it is, and goes on only when every child has said so. This makes an order that the
 * scheduler cannot change (for example "every process holds a claim before any finishes").
 */
export function stdinGate(): StdinGate {
  const input = readline.createInterface({ input: process.stdin });
  const lines = input[Symbol.asyncIterator]();
  return {
    async pass(name) {
      process.stdout.write(`${name}\n`);
      for (;;) {
        const next = await lines.next();
        if (next.done === true) throw new Error(`stdin ended before "go" after "${name}"`);
        if (next.value.trim() === "go") return;
      }
    },
    close: () => input.close(),
  };
}

/**
 * The parent's side: waits until every child has printed the line `name` (rejects if one exits
 * first or takes `timeoutMs`), then lets them all go at once. `last` ends their stdin after it.
 */
export async function openBarrier(
  children: readonly TsChild[],
  name: string,
  options: { timeoutMs?: number; last?: boolean } = {},
): Promise<void> {
  await Promise.all(children.map((c) => c.waitForLine((line) => line === name, options.timeoutMs)));
  for (const c of children) {
    if (options.last === true) c.process.stdin.end("go\n");
    else c.process.stdin.write("go\n");
  }
}
