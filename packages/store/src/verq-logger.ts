import { coerceError, isVerqError } from "@verq/core";

/** One log call: the line's fields first, then its message (pino's and Fastify's order). */
export type LogFn = (fields: Record<string, unknown>, message: string) => void;

/**
 * What verq's workers, relay and receiver log through: four levels of `(fields, message)`. A
 * pino logger (and Fastify's `app.log`) fits as it is; the store depends on no logging library.
 * verq passes ids, tokens, states, counts and durations in `fields`, never a payload, a request
 * body or an answer.
 */
export interface VerqLogger {
  readonly error: LogFn;
  readonly warn: LogFn;
  readonly info: LogFn;
  readonly debug: LogFn;
}

/**
 * The fields that describe a failure in a log line: its stable code (`VERQ_UNEXPECTED` for an
 * error that has none) and its message. verq's messages carry no payload (docs/architecture.md, "Errors"); no
 * stack, no cause.
 */
export function errorFields(error: unknown): { code: string; error: string } {
  const e = coerceError(error);
  return { code: isVerqError(e) ? e.code : "VERQ_UNEXPECTED", error: e.message };
}

/** Milliseconds since `start` (a `performance.now()` reading), to a tenth of a millisecond. */
export const elapsedMs = (start: number): number => Math.round((performance.now() - start) * 10) / 10;

/** A logger that writes nothing: `logger: null` on a worker. */
export const silentLogger: VerqLogger = {
  error: () => undefined,
  warn: () => undefined,
  info: () => undefined,
  debug: () => undefined,
};

/**
 * The logger of a worker given none: its warnings and errors, each one JSON line on stderr
 * (`level`, `time`, `msg`, then the fields); info and debug lines are dropped. Failures are never
 * hidden by default; a service passes its own logger, or `null` to silence them.
 */
export const stderrLogger: VerqLogger = {
  error: (fields, message) => writeLine("error", fields, message),
  warn: (fields, message) => writeLine("warn", fields, message),
  info: () => undefined,
  debug: () => undefined,
};

function writeLine(level: string, fields: Record<string, unknown>, message: string): void {
  process.stderr.write(`${JSON.stringify({ level, time: Date.now(), msg: message, ...fields })}\n`);
}
