/**
 * The contract between the bench harness and what it measures. A scenario measures one system
 * doing one thing and returns one or more named figures; the harness runs every scenario
 * several times, interleaved, and prints median, min and max with ratios against the
 * baselines measured in the same run.
 */

/** How big a run is: `quick` proves the harness in seconds; `full` is the reported run. */
export interface BenchSize {
  readonly quick: boolean;
  /** Jobs per throughput run (10,000 in a full run). */
  readonly jobs: number;
  /** Requests per relay run. */
  readonly requests: number;
  /** Files per file-consumer run. */
  readonly files: number;
  /** A fresh folder for this run's files (SQLite databases, queue folders); removed afterwards. */
  readonly dir: string;
}

/** Processes, jobs in flight and connections of a PostgreSQL scenario. */
export interface PostgresUse {
  /** Processes working on the one database. */
  readonly processes: number;
  /** Jobs in flight in each process (none for a scenario that only enqueues). */
  readonly concurrency: number | "none (enqueue only)" | "none (statements replayed)";
  /** Connections in each process's pool. */
  readonly poolSize: number;
}

/** One figure: a value and whether more is better (rates) or less is better (latency, bytes). */
export interface Figure {
  readonly value: number;
  readonly unit: string;
  readonly better: "higher" | "lower";
}

export interface Scenario {
  /** The figure group, e.g. "2. jobs/s, one worker": rows of one group are compared. */
  readonly group: string;
  /**
   * Further groups whose rows these figures also belong to, measured once: pg-boss's rows stand
   * beside verq on SQLite (its embedded default) and beside verq on PostgreSQL (the same server).
   */
  readonly alsoIn?: readonly string[];
  /** The system measured: "verq" or a baseline's name ("raw better-sqlite3", "plainjob", "BullMQ", "pg-boss", "graphile-worker"). */
  readonly system: string;
  /** What was measured and with which settings (durability, concurrency, batch size). */
  readonly settings: string;
  /** How a PostgreSQL scenario uses the server, printed under the table so that the rows can be seen to match. */
  readonly postgres?: PostgresUse;
  /** Rounds to run in a full run when fewer than the others (a long single measurement); all in --quick. */
  readonly rounds?: number;
  /**
   * Whether the services it needs (Redis, PostgreSQL, a build) are there, for a run of `size`
   * (asked once, before the first round); a missing one is reported, not hidden.
   */
  available?(size: BenchSize): Promise<true | string>;
  /** Runs once and returns its figures by name, e.g. `{ "jobs/s": … }` or `{ "p50 ms": …, "p99 ms": … }`. */
  run(size: BenchSize): Promise<Record<string, Figure>>;
}

/** A rate figure. */
export const perSecond = (count: number, ms: number, unit = "jobs/s"): Figure => ({
  value: count / (ms / 1000),
  unit,
  better: "higher",
});

/** A latency or size figure. */
export const lower = (value: number, unit: string): Figure => ({ value, unit, better: "lower" });

/** The p-th percentile (0–100) of `samples` (nearest rank). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** Milliseconds since `start` (from `performance.now()`). */
export const since = (start: number): number => performance.now() - start;

/**
 * Whether `system` is verq itself ("verq", "verq (batchSize 8)", "verq on PostgreSQL"), whose
 * rows the baselines are compared with; "verq's statements replayed (schema limit)" runs none of
 * verq's code and is a baseline.
 */
export const isVerqSystem = (system: string): boolean => /^verq(\s|$)/.test(system);
