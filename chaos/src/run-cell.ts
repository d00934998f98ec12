/**
 * One cell of the table: one system through one scenario, from an empty queue to the bounded
 * wait's end, counted from the recorder and from the system's own records.
 */
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import type { PrivatePostgres } from "@verq/testing";
import { groupByJob } from "./late-completions.ts";
import { startRecorder, type Recorder } from "./recorder.ts";
import type { Fault, Scenario } from "./scenarios.ts";
import { CONCURRENCY, jobId, type ChaosSystem } from "./system.ts";
import { WorkerSet } from "./worker-set.ts";

/** Worker processes per system. */
export const WORKERS = 2;

/** What a cell is run with. */
export interface CellOptions {
  readonly jobs: number;
  readonly quick: boolean;
  /** How long a handler run lasts. */
  readonly handlerMs: number;
  /** How long to wait after the fault for the queue to finish every job. */
  readonly settleMs: number;
}

/** The scenario's server, on its `postgres` database. */
export interface Server {
  readonly url: string;
  readonly privateServer: PrivatePostgres | null;
  readonly failover: (() => Promise<void>) | null;
  /** Brings the server back to its starting state before a cell (a failed-over cluster's old primary rejoins). */
  readonly beforeCell?: () => Promise<void>;
}

/** A cell's figures. */
export interface Cell {
  /** Jobs no handler ran to the recorder by the end of the wait. */
  readonly lost: number;
  /** Jobs whose handler reached the recorder more than once. */
  readonly twice: number;
  /** Jobs whose success the queue accepted from an attempt it had taken away. */
  readonly late: number;
  /** Seconds from the fault to the next job completed (see docs/chaos.md); null when it did not happen within the wait. */
  readonly recoveryS: number | null;
  /** Jobs the queue still held unfinished at the end of the wait. */
  readonly unfinished: number;
  /** Workers that exited on their own and were started again. */
  readonly restarts: number;
  readonly note?: string;
}

let sequence = 0;

export async function runCell(
  system: ChaosSystem,
  scenario: Scenario,
  server: Server | null,
  options: CellOptions,
): Promise<Cell> {
  const name = `${process.pid}_${sequence++}`;
  const recorder = await startRecorder(options.handlerMs);
  const database = system.engine === "postgres" && server !== null ? `chaos_${name}` : null;
  const databaseUrl = database === null || server === null ? null : urlOf(server.url, database);
  const cleanups: (() => Promise<void>)[] = [() => recorder.stop()];
  try {
    await server?.beforeCell?.();
    if (database !== null && server !== null) {
      await admin(server.url, `create database ${database}`);
      cleanups.unshift(() => admin(server.url, `drop database if exists ${database} with (force)`));
    }
    const run = await system.open({ postgresUrl: databaseUrl, name, jobs: options.jobs, recorder });
    cleanups.unshift(() => run.close());
    const workers = new WorkerSet(run, WORKERS);
    cleanups.unshift(() => workers.stop());
    await until(() => recorder.runs.length >= Math.min(options.jobs / 4, 60), 60_000);
    const fault = await scenario.inject({
      system,
      workers,
      recorder,
      database,
      serverUrl: server?.url ?? null,
      privateServer: server?.privateServer ?? null,
      failover: server?.failover ?? null,
      quick: options.quick,
      handlerMs: options.handlerMs,
    });
    // The wait starts once the fault is over (a restarted server answers, a new primary took
    // writes): every system then has the same time to finish, however long its fault took.
    const deadline = Date.now() + options.settleMs;
    let unfinished = options.jobs;
    while (Date.now() < deadline) {
      unfinished = await run.unfinished().catch(() => unfinished);
      if (unfinished === 0 && groupByJob(recorder.runs).size === options.jobs) break;
      await sleep(200);
    }
    await workers.stop();
    unfinished = await run.unfinished().catch(() => unfinished);
    const runs = groupByJob(recorder.runs);
    let lost = 0;
    let twice = 0;
    for (let i = 0; i < options.jobs; i++) {
      const count = runs.get(jobId(i))?.length ?? 0;
      if (count === 0) lost++;
      if (count > 1) twice++;
    }
    return {
      lost,
      twice,
      late: await run.lateCompletionsAccepted(),
      recoveryS: recovery(recorder, fault),
      unfinished,
      restarts: workers.restarts,
      ...(fault.kind === "system" && fault.note !== undefined ? { note: fault.note } : {}),
    };
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
}

/**
 * For a worker fault, the seconds until every job the victim was running at the fault (its
 * run had reached the recorder, the answer had not yet been written) had a run started after
 * it, by the restarted worker, another one, or the victim itself once thawed. For a fault of the
 * whole system, from its end to the first run that needed a claim made after it: the workers
 * may hold up to `WORKERS × CONCURRENCY` jobs claimed before the fault, so that is the run after
 * those. Null when that did not happen within the wait, or when no job was caught mid-run.
 */
function recovery(recorder: Recorder, fault: Fault): number | null {
  if (fault.kind === "system") {
    const next = recorder.runs.filter((r) => r.at > fault.end)[WORKERS * CONCURRENCY];
    return next === undefined ? null : (next.at - fault.end) / 1000;
  }
  const interrupted = new Set(
    recorder.runs
      .filter((r) => r.worker === fault.victim && r.at <= fault.at && (r.answeredAt === null || r.answeredAt > fault.at))
      .map((r) => r.job),
  );
  if (interrupted.size === 0) return null;
  let latest = 0;
  for (const job of interrupted) {
    const next = recorder.runs.find((r) => r.job === job && r.at > fault.at);
    if (next === undefined) return null;
    latest = Math.max(latest, next.at - fault.at);
  }
  return latest / 1000;
}

/** `url` on database `database`. */
function urlOf(url: string, database: string): string {
  const other = new URL(url);
  other.pathname = `/${database}`;
  return other.toString();
}

async function admin(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, application_name: "chaos-admin" });
  client.on("error", () => {});
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`the run did not get under way within ${timeoutMs / 1000} s`);
    await sleep(20);
  }
}
