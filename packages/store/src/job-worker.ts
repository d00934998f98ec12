import { VerqError, checkIdentifier, checkLeaseMs, type FinishOutcome } from "@verq/core";
import { MAX_BATCH_SIZE, sendForOutcome, type ClaimedJob, type FinishInput, type JobQueue, type Sender } from "./job-queue.ts";

/** Settings of a {@link JobWorker}. */
export interface JobWorkerOptions {
  /** Who holds the leases (shown in `verq jobs show`). */
  readonly owner: string;
  /** Delivers one job; only a return of exactly `true` is success (SPEC J5). */
  readonly sender: Sender;
  /** Jobs being sent at once: 1 by default. */
  readonly concurrency?: number;
  /**
   * Most jobs claimed, and most outcomes recorded, in one transaction: `concurrency` by default.
   * Jobs claimed beyond `concurrency` wait for a free slot while their lease runs, so keep
   * `batchSize × the time of one send / concurrency` well under the lease.
   */
  readonly batchSize?: number;
  /** Lease of each claim; the queue's default when absent. */
  readonly leaseMs?: number;
  /** Pause before looking again when nothing is due: 100 ms by default. Enqueues on the same `JobQueue` wake the worker at once. */
  readonly idleMs?: number;
  /**
   * Called when a send fails in a way that is neither `Retryable` nor `Permanent` (an unexpected
   * error, or a `BadAck`). The job stays leased and is reclaimed when its lease expires (SPEC J5).
   */
  readonly onSendError?: (job: ClaimedJob, error: unknown) => void;
}

/** What a worker did so far. */
export interface JobWorkerReport {
  /** Outcomes recorded, by outcome. */
  readonly ok: number;
  readonly retry: number;
  readonly permanent: number;
  /** Outcomes refused because the lease had been lost (another worker holds the job now). */
  readonly refused: number;
  /** Sends that failed unexpectedly; their jobs stay leased until the lease expires. */
  readonly leftLeased: number;
  /** Transactions that claimed, and that recorded outcomes (a round that did both counts in both). */
  readonly claimTransactions: number;
  readonly finishTransactions: number;
}

/**
 * A worker loop with group commit: each round is one transaction that records the outcomes
 * that have arrived and claims up to `batchSize` due jobs; the jobs are sent with at most
 * `concurrency` in flight. Each job keeps exactly the semantics of
 * `claim` → send → `finish` (its own fencing token, lease and outcome rules); only the commits
 * are shared, so the cost of a commit is divided among the jobs of a round.
 *
 * @example
 * const worker = new JobWorker(queue, { owner: "worker-1", sender, concurrency: 8, batchSize: 64 });
 * worker.start();
 * // … later
 * await worker.stop();
 */
export class JobWorker {
  readonly #queue: JobQueue;
  readonly #owner: string;
  readonly #sender: Sender;
  readonly #concurrency: number;
  readonly #batchSize: number;
  readonly #leaseMs: number | undefined;
  readonly #idleMs: number;
  readonly #onSendError: ((job: ClaimedJob, error: unknown) => void) | undefined;

  readonly #waiting: ClaimedJob[] = [];
  readonly #outcomes: FinishInput[] = [];
  #inFlight = 0;
  #stopping = false;
  #running: Promise<JobWorkerReport> | null = null;
  #wake: (() => void) | null = null;
  #report = { ok: 0, retry: 0, permanent: 0, refused: 0, leftLeased: 0, claimTransactions: 0, finishTransactions: 0 };

  constructor(queue: JobQueue, options: JobWorkerOptions) {
    this.#queue = queue;
    this.#owner = checkIdentifier(options.owner, "the owner", "VERQ_INVALID_ARGUMENT");
    if (typeof options.sender !== "function") throw new VerqError("VERQ_INVALID_ARGUMENT", "a worker needs a sender function");
    this.#sender = options.sender;
    this.#concurrency = checkCount(options.concurrency ?? 1, "concurrency");
    this.#batchSize = checkCount(options.batchSize ?? this.#concurrency, "batchSize");
    this.#leaseMs = options.leaseMs === undefined ? undefined : checkLeaseMs(options.leaseMs);
    this.#idleMs = checkCount(options.idleMs ?? 100, "idleMs", 3_600_000);
    this.#onSendError = options.onSendError;
  }

  /** Works until nothing is due and nothing is in flight, then resolves with the report. */
  async drain(): Promise<JobWorkerReport> {
    if (this.#running !== null) throw new VerqError("VERQ_INVALID_ARGUMENT", "this worker is already running");
    this.#running = this.#loop(true);
    try {
      return await this.#running;
    } finally {
      this.#running = null;
    }
  }

  /** Works until {@link stop} is called. */
  start(): void {
    if (this.#running !== null) throw new VerqError("VERQ_INVALID_ARGUMENT", "this worker is already running");
    this.#stopping = false;
    const unsubscribe = this.#queue.onEnqueued(() => this.#wakeUp());
    this.#running = this.#loop(false).finally(unsubscribe);
  }

  /** Stops claiming, lets the jobs in flight finish and records their outcomes; then resolves with the report. */
  async stop(): Promise<JobWorkerReport> {
    this.#stopping = true;
    this.#wakeUp();
    const running = this.#running;
    if (running === null) return { ...this.#report };
    try {
      return await running;
    } finally {
      this.#running = null;
    }
  }

  /** What the worker did so far. */
  get report(): JobWorkerReport {
    return { ...this.#report };
  }

  async #loop(untilIdle: boolean): Promise<JobWorkerReport> {
    for (;;) {
      // Group commit: let the sends that settle in this turn of the event loop join the round.
      if (this.#outcomes.length > 0) await new Promise((resolve) => setImmediate(resolve));
      const outcomes = this.#outcomes.splice(0, MAX_BATCH_SIZE);
      const held = this.#inFlight + this.#waiting.length;
      const room = this.#batchSize - held;
      // Claim in rounds of at least half a batch, so that commits stay shared.
      const claiming = !this.#stopping && (held === 0 || room >= Math.ceil(this.#batchSize / 2));
      let claimed = 0;
      if (outcomes.length > 0 || claiming) {
        // One transaction records the outcomes that arrived and claims the next jobs.
        const round = await this.#queue.finishAndClaim(outcomes, this.#owner, claiming ? room : 0, this.#leaseOption());
        this.#tally(outcomes, round.accepted);
        if (claiming) this.#report.claimTransactions++;
        claimed = round.claimed.length;
        this.#waiting.push(...round.claimed);
        this.#startSends();
      }
      if (this.#outcomes.length > 0) continue;
      const busy = this.#inFlight > 0 || this.#waiting.length > 0;
      if (!busy && (this.#stopping || (untilIdle && claimed === 0))) return { ...this.#report };
      // Wait for a send to settle or a job to be enqueued (both wake the loop), or poll again.
      if (busy || claimed === 0) await this.#sleep(this.#idleMs);
    }
  }

  #leaseOption(): { leaseMs?: number } {
    return this.#leaseMs === undefined ? {} : { leaseMs: this.#leaseMs };
  }

  #startSends(): void {
    while (this.#inFlight < this.#concurrency) {
      const job = this.#waiting.shift();
      if (job === undefined) return;
      this.#inFlight++;
      void this.#send(job);
    }
  }

  /** Sends one job and queues its outcome; never rejects. */
  async #send(job: ClaimedJob): Promise<void> {
    let outcome: FinishOutcome | null = null;
    try {
      outcome = await sendForOutcome(this.#sender, job);
    } catch (error) {
      this.#report.leftLeased++;
      this.#onSendError?.(job, error);
    } finally {
      this.#inFlight--;
      if (outcome !== null) this.#outcomes.push({ id: job.id, token: job.token, outcome });
      this.#startSends();
      this.#wakeUp();
    }
  }

  #tally(outcomes: readonly FinishInput[], accepted: readonly boolean[]): void {
    if (outcomes.length === 0) return;
    this.#report.finishTransactions++;
    outcomes.forEach((finish, i) => {
      if (accepted[i] === true) this.#report[finish.outcome]++;
      else this.#report.refused++;
    });
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = null;
        resolve();
      }, ms);
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = null;
        resolve();
      };
    });
  }

  #wakeUp(): void {
    this.#wake?.();
  }
}

function checkCount(value: number, name: string, max = MAX_BATCH_SIZE): number {
  if (!Number.isSafeInteger(value) || value < 1 || value > max) {
    throw new VerqError("VERQ_INVALID_ARGUMENT", `${name} must be a whole number from 1 to ${max}`);
  }
  return value;
}
