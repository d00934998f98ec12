import { Option } from "commander";

/** The `--json` option as commander hands it to an action. */
export interface JsonOptions {
  readonly json?: boolean;
}

/** The `--db` and `--json` options as commander hands them to an action. */
export interface DbOptions extends JsonOptions {
  readonly db: string;
}

/**
 * The required `--db <file|url>` option, for `command.addOption`: a SQLite file (created if
 * missing unless the command says otherwise) or a PostgreSQL URL (`postgres://…` or
 * `postgresql://…`).
 */
export function dbOption(description = "SQLite file or postgres:// URL"): Option {
  return new Option("--db <file|url>", description).makeOptionMandatory();
}

/** The `--json` option (machine-readable output on stdout, errors as `{"error":{"code","message"}}`), for `command.addOption`. */
export function jsonOption(description = "print JSON"): Option {
  return new Option("--json", description);
}
