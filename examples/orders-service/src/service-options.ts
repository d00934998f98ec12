import { parseArgs } from "node:util";
import { ServiceError } from "./service-error.ts";

/** How the orders service runs. */
export interface ServiceOptions {
  /** The SQLite file of the store: verq's tables and the service's own. */
  readonly db: string;
  readonly host: string;
  /** 0 picks a free port; the address is printed when the service listens. */
  readonly port: number;
  /** Lease of each charge claim in ms: how long a crashed worker's job waits before it is sent again. */
  readonly leaseMs: number;
}

function whole(value: string, name: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new ServiceError("ORDERS_INVALID_OPTION", `${name} must be a whole number from ${min} to ${max}`);
  }
  return n;
}

/**
 * Reads the options from the command line (`--db`, `--host`, `--port`, `--lease-ms`), each
 * falling back to its environment variable (`ORDERS_DB`, `ORDERS_HOST`, `ORDERS_PORT`,
 * `ORDERS_LEASE_MS`) and then to its default (`orders.sqlite`, `127.0.0.1`, 3000, 30 s).
 * Anything malformed throws `ORDERS_INVALID_OPTION`.
 */
export function parseServiceOptions(argv: readonly string[], env: NodeJS.ProcessEnv): ServiceOptions {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { db: { type: "string" }, host: { type: "string" }, port: { type: "string" }, "lease-ms": { type: "string" } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new ServiceError("ORDERS_INVALID_OPTION", error instanceof Error ? error.message : "unreadable options");
  }
  const db = values.db ?? env.ORDERS_DB ?? "orders.sqlite";
  if (db.length === 0) throw new ServiceError("ORDERS_INVALID_OPTION", "--db must name a SQLite file");
  return {
    db,
    host: values.host ?? env.ORDERS_HOST ?? "127.0.0.1",
    port: whole(values.port ?? env.ORDERS_PORT ?? "3000", "--port", 0, 65_535),
    leaseMs: whole(values["lease-ms"] ?? env.ORDERS_LEASE_MS ?? "30000", "--lease-ms", 100, 86_400_000),
  };
}
