/**
 * `@verq/adapters/constants`: the values the edges' options are checked against, loading
 * nothing else (no pino, no zod, no fastify): the log levels every `logger` option and the CLI's
 * `--log-level` accept, and the file queue's default size limit of a message. A program that
 * validates its own configuration or draws its own help imports these without loading an edge.
 * The same values are exported by `@verq/adapters/logging` and `@verq/adapters/files`.
 *
 * @packageDocumentation
 */
export { LOG_LEVELS, type LogLevel } from "../log-fields.ts";
export { DEFAULT_MAX_BYTES } from "../files/read-claimed-file.ts";
