import { ManualClock, systemClock, VerqError, type Clock } from "@verq/core";

/**
 * The clock of a CLI process: the system clock, unless `VERQ_NOW_MS` fixes "now" to a number
 * of ms since the epoch. Crash tests use it to stand two processes exactly on a lease boundary.
 */
export function clockFromEnv(env: NodeJS.ProcessEnv = process.env): Clock {
  const fixed = env.VERQ_NOW_MS;
  if (fixed === undefined || fixed === "") return systemClock;
  const ms = Number(fixed);
  if (!Number.isSafeInteger(ms) || ms < 0)
    throw new VerqError("VERQ_INVALID_ARGUMENT", "VERQ_NOW_MS must be a whole number of ms since the epoch");
  return new ManualClock(ms);
}
