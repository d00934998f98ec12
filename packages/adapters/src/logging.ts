import { pino, type DestinationStream, type Logger } from "pino";
import type { LogLevel } from "./log-fields.ts";

/**
 * Field names whose values a log line never shows, at the top level and one level down (a
 * request's `body`, a job's `payload`, a message's `fields`, an answer, credentials in headers).
 * verq never logs them; this is the safety net for a call that would.
 */
export const REDACTED_FIELDS = [
  "payload",
  "body",
  "request",
  "response",
  "answer",
  "fields",
  "headers",
  "authorization",
  "cookie",
  "password",
] as const;

/** Settings of {@link createLogger}. */
export interface CreateLoggerOptions {
  /** The least severe level written: `info` by default. */
  readonly level?: LogLevel;
  /** The `name` field of every line (`verq-worker`, `verq-relay`, …). */
  readonly name?: string;
  /**
   * Where the JSON lines go: an object with `write(line)`. By default stderr, written
   * synchronously, so that stdout keeps only a command's documented output and no line is lost
   * when the process exits.
   */
  readonly destination?: DestinationStream;
}

/**
 * Makes the pino logger verq's servers and workers log through: one JSON object per line with
 * `level` as its label (`"info"`), `time` in ms since the epoch, `pid`, `hostname`, `name`, the
 * call's fields and `msg`. The fields named in {@link REDACTED_FIELDS} are replaced by
 * `"[redacted]"`. No transport and no worker thread: lines are written in the process. A pino
 * logger fits every `logger` option of verq (`JobWorker`, `RelayService`, `receiverPlugin`,
 * `FileConsumer`) and Fastify's `loggerInstance`.
 *
 * @example
 * const logger = createLogger({ level: "debug", name: "orders-worker" });
 * const worker = new JobWorker(queue, { owner: "orders-1", sender, logger });
 */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const destination = options.destination ?? pino.destination({ dest: 2, sync: true });
  return pino(
    {
      level: options.level ?? "info",
      ...(options.name === undefined ? {} : { name: options.name }),
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_FIELDS.flatMap((field) => [field, `*.${field}`]), censor: "[redacted]" },
    },
    destination,
  );
}
