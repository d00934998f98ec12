/**
 * Where the time goes on PostgreSQL: for a measured window of one process, the CPU of the
 * process itself, the CPU of the PostgreSQL backends that served its connections, and its round
 * trips to the server. The bench's PostgreSQL worker rows (2f, 2g) report them per job beside
 * their throughput, as information.
 *
 * - Round trips: `pg.Client.prototype.query` is wrapped, in the processes the bench measures
 *   only (verq's store, graphile-worker and pg-boss all use this one `pg`), and every call in
 *   the window is counted. node-postgres sends one query at a time per connection and waits for
 *   its answer, so a call is a round trip: `BEGIN` and `COMMIT` count, as does graphile-worker's
 *   `LISTEN`; a notification received is not a call.
 * - Backend CPU: each counted connection's backend is the pid the server sent when it connected
 *   (`client.processID`, as `pg_stat_activity.pid` shows it), read from `/proc/<pid>/schedstat`
 *   (time on the CPU, in ns) at the connection's first call in the window and again at its end;
 *   where schedstat is missing, `/proc/<pid>/stat` utime + stime in ticks of `getconf CLK_TCK`.
 *   Only the backends of this process's connections count: the WAL writer, checkpointer and
 *   autovacuum serve everyone and are left out. A pid that is not a `postgres` process here (a
 *   server on another machine or in another container) is not read, and the figure is left out.
 * - Process CPU: `process.cpuUsage()`, user + system, over the window.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import { lower, type Figure } from "./scenario.ts";

/** What one process spent in a measured window. */
export interface PostgresCost {
  /** CPU of the process, µs. */
  readonly nodeCpuUs: number;
  /** CPU of the backends that served its connections, µs; null when they could not be read here. */
  readonly postgresCpuUs: number | null;
  /** Queries sent (each one round trip). */
  readonly roundTrips: number;
}

interface PgClient {
  readonly processID?: number | null;
  query: (this: PgClient, ...args: unknown[]) => unknown;
}

interface Seen {
  readonly pid: number | null;
  /** CPU of the backend at the connection's first call in the window, µs; null when unreadable. */
  readonly baseUs: number | null;
}

interface Window {
  readonly ignored: WeakSet<object>;
  readonly clients: Map<PgClient, Seen>;
  calls: number;
}

let active: Window | null = null;
const PATCHED = Symbol.for("verq.bench.postgres-cost");

/** `pg` as the package `from` loads it (verq's store, graphile-worker): the bench has no `pg` of its own. */
export function pgLoadedBy(from: string): unknown {
  const require = createRequire(import.meta.url);
  return createRequire(require.resolve(from))("pg");
}

/** `pg` as verq's store and as graphile-worker load it (one copy in this workspace; each is wrapped once). */
function pgClientPrototypes(): Set<PgClient> {
  const load = (from: string) => pgLoadedBy(from) as { Client: { prototype: PgClient } };
  return new Set([load("@verq/store").Client.prototype, load("graphile-worker").Client.prototype]);
}

function wrapQuery(): void {
  for (const proto of pgClientPrototypes()) {
    const marked = proto as PgClient & { [PATCHED]?: true };
    if (marked[PATCHED] === true) continue;
    const query = proto.query;
    proto.query = function (this: PgClient, ...args: unknown[]): unknown {
      const window = active;
      if (window !== null && !window.ignored.has(this)) {
        window.calls++;
        if (!window.clients.has(this)) {
          const pid = this.processID ?? null;
          window.clients.set(this, { pid, baseUs: pid === null ? null : backendCpuUs(pid) });
        }
      }
      return query.apply(this, args);
    };
    marked[PATCHED] = true;
  }
}

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    const read = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
    ticksPerSecond = Number.isFinite(read) && read > 0 ? read : 100;
  }
  return ticksPerSecond;
}

/** CPU time of the PostgreSQL backend `pid` so far, µs; null when it is not a `postgres` process of this machine. */
function backendCpuUs(pid: number): number | null {
  try {
    if (fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "postgres") return null;
    try {
      return Number(fs.readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1000;
    } catch {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      // Fields after the command name, which may hold spaces: state is field 3, utime 14, stime 15.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return ((Number(fields[11]) + Number(fields[12])) / clockTicks()) * 1e6;
    }
  } catch {
    return null;
  }
}

/**
 * Starts a measured window of this process; the function it returns ends it and says what the
 * window cost (called again, it says it again). One window at a time: a new one ends a window
 * still open (a run that failed before it ended its own). Connections in `ignore` (a run's own
 * progress checks) are not counted.
 */
export function meterPostgres(ignore: readonly object[] = []): () => PostgresCost {
  wrapQuery();
  const window: Window = { ignored: new WeakSet(ignore), clients: new Map(), calls: 0 };
  const cpu = process.cpuUsage();
  active = window;
  return () => {
    if (active === window) active = null;
    const used = process.cpuUsage(cpu);
    let postgresCpuUs: number | null = 0;
    for (const [client, seen] of window.clients) {
      const pid = seen.pid ?? client.processID ?? null;
      const now = pid === null ? null : backendCpuUs(pid);
      // A connection first seen before its backend's pid was known started in the window: all its CPU counts.
      const base = seen.pid === null ? 0 : seen.baseUs;
      if (now === null || base === null) postgresCpuUs = null;
      else if (postgresCpuUs !== null) postgresCpuUs += now - base;
    }
    return { nodeCpuUs: used.user + used.system, postgresCpuUs, roundTrips: window.calls };
  };
}

/** The costs of several processes of one run, added up (the backend CPU only when every process could read its own). */
export function addCosts(costs: readonly PostgresCost[]): PostgresCost {
  return costs.reduce(
    (sum, c) => ({
      nodeCpuUs: sum.nodeCpuUs + c.nodeCpuUs,
      postgresCpuUs: sum.postgresCpuUs === null || c.postgresCpuUs === null ? null : sum.postgresCpuUs + c.postgresCpuUs,
      roundTrips: sum.roundTrips + c.roundTrips,
    }),
    { nodeCpuUs: 0, postgresCpuUs: 0, roundTrips: 0 },
  );
}

/** The figure names of the cost rows, each better when lower. */
export const COST_FIGURES = {
  node: "µs CPU/job (node)",
  postgres: "µs CPU/job (postgres)",
  roundTrips: "round trips/job",
} as const;

/** A run's cost as per-job figures beside its throughput; the backend CPU left out when it could not be read. */
export function costFigures(cost: PostgresCost, jobs: number): Record<string, Figure> {
  return {
    [COST_FIGURES.node]: lower(cost.nodeCpuUs / jobs, "µs/job"),
    ...(cost.postgresCpuUs === null ? {} : { [COST_FIGURES.postgres]: lower(cost.postgresCpuUs / jobs, "µs/job") }),
    [COST_FIGURES.roundTrips]: lower(cost.roundTrips / jobs, "round trips/job"),
  };
}

/** How the cost figures were measured, for the `settings` of the rows that report them. */
export const COST_METHOD =
  "CPU/job (node): process.cpuUsage() of the worker process(es) from start to drained; CPU/job (postgres): the backends serving those processes' connections (pids from each connection's BackendKeyData, as pg_stat_activity shows them), /proc/<pid>/schedstat before and after (WAL writer, checkpointer and autovacuum not counted); round trips/job: calls of pg.Client.prototype.query in the worker process(es) (one query at a time per connection in node-postgres)";
