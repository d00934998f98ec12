import { coerceError, isVerqError, type VerqErrorCode } from "@verq/core";
import { EXIT, type ExitCode } from "./exit-codes.ts";
import { clip } from "./usage.ts";

/**
 * Where a command writes; tests pass their own to capture output. (The types of this file cost
 * nothing at run time; its functions load `@verq/core`, so only the actions import them.)
 */
export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/** What every area's command registration receives. */
export interface CliContext {
  readonly io: CliIo;
  /** Sets the process exit code (tests capture it instead). */
  readonly setExitCode: (code: number) => void;
}

/** Prints `value` as one line of JSON (for `--json`) or as the human text `human()` makes. */
export function emit(io: CliIo, json: boolean, value: unknown, human: () => string): void {
  io.out(json ? JSON.stringify(value) : human());
}

/** The exit code of each code that is not a plain refusal (exit 3); keyed by core's codes only. */
const CODE_EXITS: Readonly<Partial<Record<VerqErrorCode, ExitCode>>> = {
  VERQ_UNKNOWN_JOB: EXIT.notFound,
  VERQ_UNKNOWN_GUID: EXIT.notFound,
  VERQ_UNKNOWN_QUEUE: EXIT.notFound,
  VERQ_FILE_NOT_FOUND: EXIT.notFound,
  VERQ_STORE_NOT_INITIALIZED: EXIT.notFound,
  VERQ_INVALID_ARGUMENT: EXIT.usage,
  VERQ_INVALID_ID: EXIT.usage,
  VERQ_INVALID_PAYLOAD: EXIT.usage,
  VERQ_INVALID_LEASE: EXIT.usage,
  VERQ_INVALID_NOTE: EXIT.usage,
  VERQ_INVALID_DEADLINE: EXIT.usage,
  VERQ_INVALID_CRON: EXIT.usage,
  VERQ_INVALID_TIMEZONE: EXIT.usage,
  VERQ_INVALID_STREAM: EXIT.usage,
  VERQ_STREAM_TYPE_TAKEN: EXIT.usage,
  VERQ_UNSUPPORTED_MACHINE: EXIT.usage,
  VERQ_UPCASTER_GAP: EXIT.usage,
  VERQ_UNKNOWN_COMMAND: EXIT.usage,
  VERQ_EVENT_FROM_NEWER_SCHEMA: EXIT.failed,
  VERQ_BAD_ACK: EXIT.failed,
  VERQ_STORE_BUSY: EXIT.failed,
  VERQ_STORE_UNREACHABLE: EXIT.failed,
  VERQ_STORE_CONNECTION_LOST: EXIT.failed,
  VERQ_STORE_FULL: EXIT.failed,
  VERQ_STORE_CORRUPT: EXIT.failed,
  VERQ_TABLE_CONFLICT: EXIT.failed,
  VERQ_NESTED_TRANSACTION: EXIT.failed,
  VERQ_PORT_IN_USE: EXIT.failed,
  VERQ_UNEXPECTED: EXIT.failed,
};

/**
 * Reports an error the way every command does: `verq: CODE: message` on stderr (or
 * `{"error":{"code","message"}}` on stdout with `--json`) and returns the exit code for it.
 */
export function reportError(io: CliIo, json: boolean, error: unknown): ExitCode {
  const e = coerceError(error);
  const code = isVerqError(e) ? e.code : "VERQ_UNEXPECTED";
  // Messages quote the value at fault; a huge one (a 1 MB path) is cut, never echoed whole.
  const message = clip(e.message, 2_000);
  if (json) io.out(JSON.stringify({ error: { code, message } }));
  else io.err(`verq: ${code}: ${message}`);
  return exitCodeOf(e);
}

/** The exit code of an error, as {@link reportError} returns it: by its `VERQ_*` code. */
export function exitCodeOf(error: unknown): ExitCode {
  return isVerqError(error) ? (CODE_EXITS[error.code] ?? EXIT.refused) : EXIT.failed;
}
