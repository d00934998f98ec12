/**
 * What the harness needs of a queue system to run a scenario against it: its jobs enqueued in a
 * database (or Redis) of the run's own, worker processes it can kill and freeze, a count of the
 * jobs the queue still holds, and its own verdict on late completions.
 */
import type { ChildProcess } from "node:child_process";
import type { Recorder } from "./recorder.ts";

/** Where one run of one system lives. */
export interface RunPlace {
  /** The run's own PostgreSQL database (`application_name` not set); null for a Redis system. */
  readonly postgresUrl: string | null;
  /** A name of the run's own (a schema, a queue, a key prefix). */
  readonly name: string;
  readonly jobs: number;
  readonly recorder: Recorder;
}

/** One system set up for one run. */
export interface SystemRun {
  /** Starts a worker process; `worker` is its id as reported to the recorder. */
  startWorker(worker: string): ChildProcess;
  /** Jobs the queue has not finished (pending, leased, locked, retrying). */
  unfinished(): Promise<number>;
  /** Successes the queue recorded for an attempt it had already taken away (see docs/chaos.md). */
  lateCompletionsAccepted(): Promise<number>;
  close(): Promise<void>;
}

/** A queue system under test. */
export interface ChaosSystem {
  readonly name: string;
  readonly engine: "postgres" | "redis";
  /** Its settings in this harness, for the table's notes. */
  readonly settings: string;
  /** Sets up the run's schema or queue and enqueues `place.jobs` jobs, `job-000000` on. */
  open(place: RunPlace): Promise<SystemRun>;
}

/** The id of the `i`-th job of a run. */
export const jobId = (i: number): string => `job-${String(i).padStart(6, "0")}`;

/** The `application_name` of every worker connection: the terminate loop aims at it. */
export const WORKER_APPLICATION = "chaos-worker";

/** `url` with its connections named `application`. */
export function withApplication(url: string, application: string): string {
  const named = new URL(url);
  named.searchParams.set("application_name", application);
  return named.toString();
}

/** Jobs run at once by one worker process, the same for every system. */
export const CONCURRENCY = 2;
