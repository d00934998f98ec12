import type { Rng } from "./random.ts";

/**
 * Exponential backoff with jitter. The delay before attempt `n + 1` is
 * `min(maxMs, baseMs * factor^(n - 1))`, then jittered:
 * - `full`: uniform in [0, delay] (spreads a thundering herd best);
 * - `equal`: delay/2 + uniform in [0, delay/2];
 * - `none`: exactly the delay.
 */
export interface BackoffPolicy {
  /** The delay after the first failed attempt, before jitter, in ms. */
  readonly baseMs: number;
  /** How much each further failed attempt multiplies the delay by. */
  readonly factor: number;
  /** The cap on the delay before jitter, in ms: no retry waits longer, however many attempts failed. */
  readonly maxMs: number;
  readonly jitter: "full" | "equal" | "none";
}

/**
 * The policy a queue uses unless it is given one: 1 s, doubling, capped at 5 min, with equal
 * jitter so that every retry waits at least half its delay. Together with a job's deadline it
 * decides between a retry and `dead(deadline)` (SPEC J4).
 */
export const defaultBackoff: BackoffPolicy = { baseMs: 1_000, factor: 2, maxMs: 300_000, jitter: "equal" };

/**
 * The delay in whole milliseconds after the `attempt`-th failed attempt (1-based). Pure: the
 * randomness comes from `rng`.
 */
export function backoffDelay(policy: BackoffPolicy, attempt: number, rng: Rng): number {
  const exponent = Math.max(0, attempt - 1);
  const raw = Math.min(policy.maxMs, policy.baseMs * Math.pow(policy.factor, exponent));
  const capped = Number.isFinite(raw) ? raw : policy.maxMs;
  switch (policy.jitter) {
    case "none":
      return Math.round(capped);
    case "full":
      return Math.round(capped * rng());
    case "equal":
      return Math.round(capped / 2 + (capped / 2) * rng());
  }
}
