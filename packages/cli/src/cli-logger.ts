import type { Logger } from "pino";
import { LOG_LEVELS, type LogLevel } from "@verq/adapters/constants";
import { parseChoice } from "./common.ts";
import type { CliContext } from "./output.ts";

/**
 * Checks `--log-level`: one of `fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent`;
 * anything else is `VERQ_INVALID_ARGUMENT` (exit 2). Call it with the other options, before
 * anything is opened.
 */
export const parseLogLevel = (text: string): LogLevel => parseChoice(text, "--log-level", LOG_LEVELS);

/**
 * The logger of a command that serves or works: pino, loaded now (only the commands that log
 * load it), writing JSON lines to the command's stderr (`context.io.err`), so that stdout keeps
 * the command's documented output.
 */
export async function openLogger(context: CliContext, level: LogLevel, name: string): Promise<Logger> {
  const { createLogger } = await import("@verq/adapters/logging");
  return createLogger({ level, name, destination: { write: (line: string) => context.io.err(line) } });
}
