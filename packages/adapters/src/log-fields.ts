/*
 * What verq's log lines are made of, without the logger: the levels (checked by the CLI before
 * anything is loaded) and durations. Modules that log import this, never pino: they take a
 * `VerqLogger` and load nothing when none is given.
 */

/** pino's levels, most severe first, and `silent` (nothing at all). */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** A level a logger writes from: it writes lines of that level and every more severe one. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Milliseconds since `start` (a `performance.now()` reading), to a tenth of a millisecond. */
export const msSince = (start: number): number => Math.round((performance.now() - start) * 10) / 10;
