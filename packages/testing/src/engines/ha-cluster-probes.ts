import fs from "node:fs";
import path from "node:path";
import pg from "pg";

/** One member of the cluster as Patroni's REST API `GET /cluster` describes it. */
export interface HaMember {
  readonly name: string;
  /** `leader`, `sync_standby` or `replica`. */
  readonly role: string;
  /** `running`, `starting`, `stopped`, `crashed`, `creating replica`, … */
  readonly state: string;
  readonly host?: string;
  readonly port?: number;
  readonly timeline?: number;
  readonly lag?: number | string;
}

/**
 * The members of the cluster from the first node whose Patroni answers `GET /cluster` (a lost
 * node's API is down, the others' still answer). Throws when none answers.
 */
export async function clusterMembers(restPorts: readonly number[]): Promise<HaMember[]> {
  let last: unknown;
  for (const port of restPorts) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/cluster`, { signal: AbortSignal.timeout(2_000) });
      if (!response.ok) throw new Error(`GET /cluster on ${port}: ${response.status}`);
      const body = (await response.json()) as { members?: HaMember[] };
      return body.members ?? [];
    } catch (error) {
      last = error;
    }
  }
  throw new Error(`no Patroni REST API answers /cluster (${last instanceof Error ? last.message : String(last)})`);
}

/**
 * Runs one statement on a connection of its own and closes it. Short time limits: during a
 * failover a connection attempt may hang until HAProxy cuts it, and callers poll.
 */
export async function query<R>(url: string, sql: string, params: readonly unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000, query_timeout: 5_000 });
  // An error after connect (the server killed) is thrown by the query already; this one would crash the process.
  client.on("error", () => {});
  try {
    await client.connect();
    const result = await client.query(sql, [...params]);
    return result.rows as R[];
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The path of a program: found on PATH or in the `sbin` and `bin` folders that a reduced PATH
 * may leave out (Debian installs HAProxy and PgBouncer in /usr/sbin); null when it is nowhere.
 */
export function findProgram(name: string): string | null {
  const dirs = [...(process.env.PATH ?? "").split(path.delimiter), "/usr/sbin", "/sbin", "/usr/bin", "/bin"];
  for (const dir of dirs) {
    if (dir === "") continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // Not in this folder.
    }
  }
  return null;
}
