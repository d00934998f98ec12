/**
 * Polls `condition` every `everyMs` until it holds; fails after `timeoutMs`, naming `what` (or
 * what `what` describes at that moment, such as the states the jobs are in).
 */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string | (() => string | Promise<string>),
  timeoutMs = 10_000,
  everyMs = 10,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) {
      const described = typeof what === "string" ? what : await what();
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${described}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** A short description of an error for a fault test's figures: its code, else its message's start. */
export function kindOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") return code;
  return error instanceof Error ? error.message.slice(0, 60) : String(error);
}

/** How many times each kind occurs. */
export function countBy(kinds: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of kinds) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}
