import { parseArgs } from "node:util";
import { ServiceError } from "./service-error.ts";

/** How the order-lifecycle process runs. */
export interface ServiceOptions {
  /** A SQLite file or a PostgreSQL URL (`postgres://…`). */
  readonly db: string;
  readonly host: string;
  /** 0 picks a free port; the address is printed when the service listens. */
  readonly port: number;
}

/**
 * Reads `--db`, `--host` and `--port`, each falling back to its environment variable
 * (`ORDERS_DB`, `ORDERS_HOST`, `ORDERS_PORT`) and then to its default (`order-lifecycle.sqlite`,
 * `127.0.0.1`, 3001). Anything malformed throws `ORDERS_INVALID_OPTION`.
 */
export function parseServiceOptions(argv: readonly string[], env: NodeJS.ProcessEnv): ServiceOptions {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { db: { type: "string" }, host: { type: "string" }, port: { type: "string" } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new ServiceError("ORDERS_INVALID_OPTION", error instanceof Error ? error.message : "unreadable options");
  }
  const db = values.db ?? env.ORDERS_DB ?? "order-lifecycle.sqlite";
  if (db.length === 0) throw new ServiceError("ORDERS_INVALID_OPTION", "--db must name a SQLite file or a PostgreSQL URL");
  const port = values.port ?? env.ORDERS_PORT ?? "3001";
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65_535) {
    throw new ServiceError("ORDERS_INVALID_OPTION", "--port must be a whole number from 0 to 65535");
  }
  return { db, host: values.host ?? env.ORDERS_HOST ?? "127.0.0.1", port: Number(port) };
}
