import { Option } from "commander";
import { LOG_LEVELS } from "@verq/adapters/constants";

/** The `--json` option as commander hands it to an action. */
export interface JsonOptions {
  readonly json?: boolean;
}

/** The `--db` and `--json` options as commander hands them to an action. */
export interface DbOptions extends JsonOptions {
  readonly db: string;
}

/**
 * The required `--db <file|url>` option, for `command.addOption`: a SQLite file or a PostgreSQL
 * URL (`postgres://…` or `postgresql://…`). The store there is created only by a command that
 * writes, or by `verq init`; a command that only reads refuses one that is not there (see
 * `withStore`).
 */
export function dbOption(description = "SQLite file or postgres:// URL"): Option {
  return new Option("--db <file|url>", description).makeOptionMandatory();
}

/** The `--json` option (machine-readable output on stdout, errors as `{"error":{"code","message"}}`), for `command.addOption`. */
export function jsonOption(description = "print JSON"): Option {
  return new Option("--json", description);
}

/** The `--request-timeout` option as commander hands it to an action. */
export interface RequestTimeoutOptions {
  readonly requestTimeout: string;
}

/**
 * The `--request-timeout <duration>` option of the commands that serve HTTP: the longest a client
 * may take to send a whole request (headers and body) before it gets 408 `VERQ_REQUEST_TIMEOUT`
 * and its connection is closed; 30s by default, from 1s to 1h. Checked with
 * `parseRequestTimeout` before anything is opened.
 */
export function requestTimeoutOption(): Option {
  return new Option("--request-timeout <duration>", "the longest a client may take to send a request (408 after it)").default(
    "30s",
  );
}

/** The `--log-level` option as commander hands it to an action. */
export interface LogLevelOptions {
  readonly logLevel: string;
}

/**
 * The `--log-level <level>` option of the commands that serve or work (`fatal`, `error`, `warn`,
 * `info`, `debug`, `trace` or `silent`; `byDefault` when neither the option nor the
 * `VERQ_LOG_LEVEL` environment variable is given), for `command.addOption`. The action checks it
 * with `parseLogLevel` before it opens anything and makes its logger with `openLogger`
 * (./cli-logger.ts): JSON lines on stderr.
 */
export function logLevelOption(byDefault: "info" | "warn" = "info"): Option {
  return new Option("--log-level <level>", `JSON log lines on stderr from this level: ${LOG_LEVELS.join(", ")}`)
    .env("VERQ_LOG_LEVEL")
    .default(byDefault);
}
