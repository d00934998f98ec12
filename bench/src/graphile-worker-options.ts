/**
 * graphile-worker 0.17 as the bench runs it, in the bench's process and in its worker processes
 * alike: its documented throughput settings (the local queue, batched completion and failure,
 * prepared statements on) with the concurrency and pool size that verq and pg-boss get too.
 */
import { createRequire } from "node:module";
import { Logger, type RunnerOptions, type TaskList } from "graphile-worker";

/** The pool type graphile-worker takes as `pgPool`. */
export type GraphilePool = NonNullable<RunnerOptions["pgPool"]>;

/** One connection of its own, outside any pool. */
export interface GraphileClient {
  query(text: string): Promise<{ rows: unknown[] }>;
  end(): Promise<void>;
}

interface PgModule {
  Pool: new (config: { connectionString: string; max: number }) => GraphilePool;
  Client: new (config: { connectionString: string }) => GraphileClient & {
    connect(): Promise<void>;
    on(event: "error", listener: () => void): void;
  };
}

/** `pg` as graphile-worker resolves it (the bench does not depend on it directly), so that the pool is the one it expects. */
const loadPg = (): PgModule => createRequire(createRequire(import.meta.url).resolve("graphile-worker"))("pg") as PgModule;

/** The task identifier of the bench's no-op jobs. */
export const TASK = "noop";

/**
 * Errors and warnings to stderr, the rest dropped: graphile-worker logs every completed job at
 * `info`, which a deployment at this rate would not keep either.
 */
export const quietLogger = new Logger(() => (level, message) => {
  const severity: string = level; // a string enum, compared as its string
  if (severity === "error" || severity === "warning") process.stderr.write(`[graphile-worker] ${severity}: ${message}\n`);
});

/**
 * A pool of `max` connections on `url` with the error handlers graphile-worker asks a pool it is
 * given to have (an idle client's error would otherwise end the process), one connection opened
 * already: the pool is warm before anything is timed, as verq's store is once opened.
 */
export async function openGraphilePool(url: string, max: number): Promise<GraphilePool> {
  const pool = new (loadPg().Pool)({ connectionString: url, max });
  pool.on("error", (error) => process.stderr.write(`[graphile-worker pool] ${error.message}\n`));
  pool.on("connect", (client) => client.on("error", () => {}));
  await pool.query("select 1");
  return pool;
}

/** A connection of its own on `url` (for a run's progress checks, kept apart from the pool it measures). */
export async function openGraphileClient(url: string): Promise<GraphileClient> {
  const client = new (loadPg().Client)({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  return client;
}

/** What one graphile-worker runner gets. */
export interface GraphileSettings {
  readonly pool: GraphilePool;
  readonly schema: string;
  /** Jobs run at once (`concurrency`). */
  readonly concurrency: number;
  /** Jobs fetched and locked per fetch of the local queue (`localQueue.size`). */
  readonly localQueueSize: number;
}

/**
 * The documented throughput settings: a local queue of `localQueueSize`, completions and
 * failures batched (`completeJobBatchDelay` and `failJobBatchDelay` 0: flushed on the next tick,
 * as on its performance page), prepared statements on. `pollInterval` keeps its 2 s default: new
 * jobs are announced by LISTEN/NOTIFY and a local queue refetches as soon as it runs dry, so the
 * interval only paces a queue whose last fetch found nothing. The pool is passed as `pgPool`, so
 * its size is the pool's `max` (`maxPoolSize` only sizes a pool graphile-worker opens itself).
 */
export function graphileRunnerOptions(settings: GraphileSettings, taskList: TaskList): RunnerOptions {
  return {
    pgPool: settings.pool,
    schema: settings.schema,
    concurrency: settings.concurrency,
    noPreparedStatements: false,
    noHandleSignals: true,
    logger: quietLogger,
    taskList,
    crontab: "",
    preset: {
      worker: {
        localQueue: { size: settings.localQueueSize },
        completeJobBatchDelay: 0,
        failJobBatchDelay: 0,
      },
    },
  };
}
