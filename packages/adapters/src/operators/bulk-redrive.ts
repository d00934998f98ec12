import {
  BULK_REDRIVE_LOCK,
  VerqError,
  isVerqError,
  sweepSkippedReasons,
  systemClock,
  type Clock,
  type DeadReason,
  type Job,
} from "@verq/core";
import { JobQueue, OperatorLocks, type DeadCursor, type DeadFilter, type HeldLock, type VerqStore } from "@verq/store";
import { Pacer, type Rate } from "./rate.ts";

/** What a bulk redrive does and how fast. */
export interface BulkRedriveOptions {
  /** The ticket id every redrive is audited with. */
  readonly note: string;
  /** At most `max` redrives in any `windowMs`, by this run and by the store's rate limit alike. */
  readonly rate: Rate;
  /** Only jobs dead for this reason. */
  readonly reason?: DeadReason | undefined;
  /** Only jobs dead for at least this long (ms). */
  readonly olderThanMs?: number | undefined;
  /** The redriven jobs' new absolute deadline; by default each job's original window from now. */
  readonly deadline?: number | undefined;
  /** Who runs it, recorded as the lock's holder (e.g. `host:pid`). */
  readonly owner: string;
  /** The lock's lease; heartbeats renew it every third of it. */
  readonly leaseMs: number;
  /** Stops the run after the redrive in progress (SIGINT, SIGTERM). */
  readonly signal?: AbortSignal | undefined;
  readonly clock?: Clock | undefined;
  /** Called after each job with the counts so far. */
  readonly onProgress?: ((report: BulkRedriveCounts) => void) | undefined;
}

/** Counts of a bulk redrive so far. */
export interface BulkRedriveCounts {
  /** Dead jobs matching the filters when the run started. */
  readonly total: number;
  /** Dead → pending, each with its audit row. */
  readonly redriven: number;
  /** Refused by the store's redrive rate limit (another process redrove in the same window): left dead for a rerun. */
  readonly heldBack: number;
  /** No longer dead when their turn came (redriven or purged meanwhile by someone else). */
  readonly skipped: number;
  /** Refused for another reason (e.g. `VERQ_INVALID_DEADLINE`): left dead. */
  readonly failed: number;
}

/** What a bulk redrive did. `stopped`: `done`, `interrupted` (by the signal) or `lock-lost` (its lease ran out). */
export interface BulkRedriveReport extends BulkRedriveCounts {
  readonly stopped: "done" | "interrupted" | "lock-lost";
  readonly failures: readonly { readonly id: string; readonly code: string }[];
  /** From the lock's acquisition to its release. */
  readonly elapsedMs: number;
  readonly owner: string;
}

const PAGE = 200;

/**
 * The dead jobs a bulk redrive started at `now` takes: the filters, never one that died after the
 * start, and none of the reasons a sweep passes over (core's `sweepSkippedReasons`: no cancelled
 * job unless the reason asked for is `cancelled`).
 */
export function bulkFilter(options: Pick<BulkRedriveOptions, "reason" | "olderThanMs">, now: number): DeadFilter {
  return {
    reason: options.reason,
    exceptReasons: sweepSkippedReasons(options.reason),
    deadAtOrBefore: now - (options.olderThanMs ?? 0),
  };
}

/** Every dead job of `filter`, page by page, oldest death first. */
export async function* deadJobs(queue: JobQueue, filter: DeadFilter): AsyncGenerator<Job> {
  let after: DeadCursor | null = null;
  for (;;) {
    const page = await queue.deadPage(filter, after, PAGE);
    yield* page;
    const last = page.at(-1);
    if (last === undefined || page.length < PAGE) return;
    after = { deadSince: last.deadSince ?? 0, id: last.id };
  }
}

/**
 * Redrives every dead job that matches, oldest death first, one audited transaction per job
 * (`JobQueue.redrive`), at most `rate.max` in any `rate.windowMs`, under the store's
 * `bulk-redrive` operator lock (SPEC O1, J7).
 *
 * Only one bulk redrive runs per store: another holder whose lease runs is `VERQ_BULK_RUNNING`,
 * naming it and since when. The pace is kept twice: this run spaces its redrives by
 * `windowMs / max` on the times their audit rows carry, and its queue's redrive limit is the same
 * rate, so the job machine itself refuses any redrive past it, whoever makes it; what it refuses
 * is held back (left dead), never failed. The jobs are read in keyset pages of what is dead now,
 * so a rerun continues with what is still dead, and a job that dies again during the run is not
 * taken twice. The signal stops the run after the redrive in progress: every job is either
 * redriven (with its audit row) or untouched. The lock is heartbeaten between jobs and released
 * at the end; a run whose heartbeat is refused (its lease ran out and another took over) stops
 * at once as `lock-lost`.
 */
export async function bulkRedrive(store: VerqStore, options: BulkRedriveOptions): Promise<BulkRedriveReport> {
  const clock = options.clock ?? systemClock;
  const locks = new OperatorLocks(store, { clock });
  const got = await locks.acquire(BULK_REDRIVE_LOCK, options.owner, options.leaseMs);
  if (!got.acquired) throw bulkRunning(got.holder);
  const started = clock.now();
  const queue = new JobQueue(store, { clock, redriveLimit: options.rate });
  const pacer = new Pacer(options.rate, clock);
  const counts = { total: 0, redriven: 0, heldBack: 0, skipped: 0, failed: 0 };
  const failures: { id: string; code: string }[] = [];
  let stopped: BulkRedriveReport["stopped"] = "done";
  let lastBeat = started;
  const { token } = got.lock;
  try {
    const filter = bulkFilter(options, started);
    counts.total = await queue.countDead(filter);
    options.onProgress?.({ ...counts });
    for await (const job of deadJobs(queue, filter)) {
      if (options.signal?.aborted === true || !(await pacer.admit(options.signal))) {
        stopped = "interrupted";
        break;
      }
      // Never act past the lease this run knows it holds: renew it first when a third has gone.
      if (clock.now() - lastBeat >= options.leaseMs / 3) {
        if ((await locks.heartbeat(BULK_REDRIVE_LOCK, token, options.leaseMs)) === null) {
          stopped = "lock-lost";
          break;
        }
        lastBeat = clock.now();
      }
      try {
        const input =
          options.deadline === undefined ? { note: options.note } : { note: options.note, deadline: options.deadline };
        const record = await queue.redrive(job.id, input);
        counts.redriven++;
        pacer.mark(record.at);
      } catch (error) {
        if (!isVerqError(error)) throw error;
        if (error.code === "VERQ_REDRIVE_RATE_LIMITED") {
          counts.heldBack++;
          pacer.mark(clock.now());
        } else if (error.code === "VERQ_NOT_DEAD" || error.code === "VERQ_UNKNOWN_JOB") {
          counts.skipped++;
        } else {
          counts.failed++;
          failures.push({ id: job.id, code: error.code });
        }
      }
      options.onProgress?.({ ...counts });
    }
  } finally {
    await locks.release(BULK_REDRIVE_LOCK, token);
  }
  return { ...counts, stopped, failures, elapsedMs: clock.now() - started, owner: options.owner };
}

/** `VERQ_BULK_RUNNING`: another bulk redrive holds the store's lock. */
export function bulkRunning(holder: HeldLock): VerqError {
  return new VerqError(
    "VERQ_BULK_RUNNING",
    `a bulk redrive is already running on this store: held by ${holder.owner} since ${new Date(holder.since).toISOString()} (lease until ${new Date(holder.leaseUntil).toISOString()}); wait for it to finish, or rerun once its lease has run out if it crashed`,
  );
}
