import { isDeepStrictEqual } from "node:util";
import {
  backoffDelay,
  decideJob,
  jobCommands,
  newJob,
  type FinishOutcome,
  type JobCommand,
  type JobEvent,
  type JobStreamState,
} from "@verq/core";
import { toJobEvent } from "./check-invariants.ts";
import { JOB_IDS, MODEL_BACKOFF } from "./jobs-model.ts";
import type { JobsReal } from "./jobs-real.ts";
import { modelFail } from "./model-assert.ts";

/** Every job stream before a call, by id, as the store holds it: the job, or the blank job at version 0. */
export type JobsBefore = ReadonlyMap<string, JobStreamState>;

/** One command of a call, for one job, built from that job's state (as the queue builds a finish's backoff). */
export interface DecidedItem {
  readonly id: string;
  readonly command: (job: JobStreamState) => JobCommand;
}

/**
 * A finish as the queue builds it: the backoff for the job's attempt drawn before deciding, for
 * every finish, here from the twin of the queue's generator (so both draw the same jitter).
 */
export function finishItem(r: JobsReal, now: number, finish: { id: string; token: number; outcome: FinishOutcome }): DecidedItem {
  const { id, token, outcome } = finish;
  return {
    id,
    command: (job) =>
      jobCommands.finish({ token, outcome, retryDelayMs: backoffDelay(MODEL_BACKOFF, job.attempts, r.twin), now }),
  };
}

/** What the real machine decides for a call, per job: its state after, the events, and each item's refusal or `null`. */
export interface Expected {
  readonly jobs: Map<string, { after: JobStreamState; events: JobEvent[] }>;
  readonly refusals: (string | null)[];
}

/** Reads {@link JobsBefore} from the store; the blank job of a pruned id carries its archive row, as the queue decides it. */
export async function jobsBefore(r: JobsReal): Promise<JobsBefore> {
  const jobs = new Map<string, JobStreamState>();
  for (const id of JOB_IDS) jobs.set(id, (await r.queue.get(id)) ?? newJob(id, await r.queue.archived(id)));
  return jobs;
}

/**
 * What `decideJob`, the real job machine, decides for `items` in order, each from the state the
 * earlier ones left (as the queue chains two items of one job in a batch), from `before`.
 */
export function decideInOrder(before: JobsBefore, items: readonly DecidedItem[]): Expected {
  const jobs = new Map<string, { after: JobStreamState; events: JobEvent[] }>();
  const refusals = items.map(({ id, command }) => {
    const current = jobs.get(id) ?? { after: before.get(id) ?? newJob(id), events: [] };
    const decision = decideJob(current.after, command(current.after));
    if (!decision.accepted) return decision.refusal;
    jobs.set(id, { after: decision.after, events: [...current.events, ...decision.events] });
    return null;
  });
  return { jobs, refusals };
}

/**
 * The property: what a `JobQueue` method wrote is exactly what the real job machine decides for
 * the same command from the same job. For every job, the events appended to its stream since
 * `before` (read back from the log) equal `expected`'s (none for a job it does not name or for
 * a refusal), and its `jobs` row is the state they fold to (as it was, or none, otherwise).
 * `method` names the call in the `[decided <method>]` tag.
 */
export async function checkDecided(r: JobsReal, method: string, before: JobsBefore, expected: Expected): Promise<void> {
  for (const id of JOB_IDS) {
    const was = before.get(id) ?? newJob(id);
    const want = expected.jobs.get(id) ?? { after: was, events: [] };
    const row = await r.queue.get(id);
    const written = row === null ? [] : (await r.queue.history(id)).slice(was.version).map(toJobEvent);
    if (!isDeepStrictEqual(written, want.events)) {
      modelFail(
        `decided ${method}`,
        `${method} appended ${JSON.stringify(written)} to ${id} (${was.state}, v${was.version}); the machine decides ${JSON.stringify(want.events)}`,
      );
    }
    const rowWant = want.after.state === "new" ? null : want.after;
    if (!isDeepStrictEqual(row, rowWant)) {
      modelFail(
        `decided ${method}`,
        `the jobs row of ${id} is ${JSON.stringify(row)}, the machine decides ${JSON.stringify(rowWant)}`,
      );
    }
  }
}

/**
 * For a claim, whose candidates the store picks: what the machine decides for the claim from
 * each job's state before, for every job whose stream the claim moved on.
 */
export async function claimedInOrder(r: JobsReal, before: JobsBefore, command: JobCommand): Promise<Expected> {
  const items: DecidedItem[] = [];
  for (const [id, job] of before) {
    if (((await r.queue.get(id))?.version ?? 0) > job.version) items.push({ id, command: () => command });
  }
  return decideInOrder(before, items);
}
