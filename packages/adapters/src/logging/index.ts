/**
 * `@verq/adapters/logging`: structured logs. The pino logger every `logger` option of verq
 * takes, with verq's secrets redacted, and the log levels the CLI and the servers accept.
 *
 * The export list is kept by hand.
 *
 * @packageDocumentation
 */
export { createLogger, REDACTED_FIELDS, type CreateLoggerOptions } from "../logging.ts";
export { LOG_LEVELS, type LogLevel } from "../log-fields.ts";
export type { LogFn, VerqLogger } from "@verq/store";
