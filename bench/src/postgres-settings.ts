/**
 * What every PostgreSQL row of the run shares: one server (the test server of `@verq/testing`),
 * its durability as it runs (read, never changed), and the same pool size, process count and
 * jobs in flight for verq, graphile-worker and pg-boss, so that their rows differ only in the
 * system measured. The harness prints these under the table.
 */
import { admin, TEST_POSTGRES_URL } from "@verq/testing";

export { TEST_POSTGRES_URL };

/** Connections in each process's pool, for every system: verq's, pg-boss's and node-postgres's default. */
export const POOL_SIZE = 10;
/** Jobs in flight in one process, for every system. */
export const CONCURRENCY = 8;
/** Worker processes on one database in the multi-process rows. */
export const PROCESSES = 4;

/** The figure groups of the PostgreSQL rows, where verq, graphile-worker and pg-boss stand side by side. */
export const PG_GROUPS = {
  enqueueOne: "1c. enqueue on PostgreSQL, one at a time",
  enqueueBulk: "1d. enqueue on PostgreSQL, in bulk",
  oneProcess: `2f. processing on PostgreSQL, concurrency ${CONCURRENCY} in one process`,
  processes: `2g. processing on PostgreSQL, ${PROCESSES} processes on one database`,
  latency: "3b. enqueue→start latency on PostgreSQL at light load",
  tableGrowth: "6c. claim-and-finish round on PostgreSQL as the jobs table grows",
} as const;

/** The server's settings that decide what a commit costs, as `show` reports them. */
export interface PostgresServerSettings {
  readonly version: string;
  readonly synchronousCommit: string;
  readonly fsync: string;
}

let probed: Promise<PostgresServerSettings | string> | undefined;
let read: PostgresServerSettings | string | undefined;

async function probe(): Promise<PostgresServerSettings | string> {
  try {
    const show = async (setting: string): Promise<string> => {
      const value = (await admin(`show ${setting}`)).rows[0]?.[setting];
      return typeof value === "string" ? value : "?";
    };
    return {
      version: (await show("server_version")).split(" ")[0] ?? "?",
      synchronousCommit: await show("synchronous_commit"),
      fsync: await show("fsync"),
    };
  } catch (error) {
    return `PostgreSQL at ${describe(TEST_POSTGRES_URL)}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** `host:port/database` of a URL, without its user or password. */
function describe(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}`;
}

/** The server's settings, read once per run; a string says why the server could not be read. */
export function postgresServerSettings(): Promise<PostgresServerSettings | string> {
  probed ??= probe().then((settings) => (read = settings));
  return probed;
}

/** A scenario's `available()` for PostgreSQL: true when the server answers, else why not. */
export async function postgresAvailable(): Promise<true | string> {
  const settings = await postgresServerSettings();
  return typeof settings === "string" ? settings : true;
}

/** The server's durability in a few words, for a row's `settings` (read by `available()`, which runs first). */
export function postgresDurability(): string {
  if (read === undefined || typeof read === "string") return "PostgreSQL durability settings not read";
  return `PostgreSQL ${read.version} as the server runs: synchronous_commit=${read.synchronousCommit}, fsync=${read.fsync}`;
}
