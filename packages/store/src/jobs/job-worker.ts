import { VerqError, checkIdentifier, checkLeaseMs } from "@verq/core";
import { elapsedMs, errorFields, silentLogger, stderrLogger, type VerqLogger } from "../verq-logger.ts";
import { checkClaimQueues, type ClaimOptions, type ClaimedJob, type LeaseExpiry } from "./claim-jobs.ts";
import { sendForOutcome, type RecordInput } from "./finish-jobs.ts";
import { MAX_BATCH_SIZE, checkCount } from "./job-context.ts";
import { kindRoutes, type KindRoutes } from "./job-kinds.ts";
import { WorkerJournal } from "./worker-journal.ts";
import { WorkerTrace } from "./worker-trace.ts";
import { Alarm } from "./alarm.ts";
import { HeartbeatClock } from "./heartbeat-clock.ts";
import { EXTEND_LEASE, HELD_ROUND, PARALLEL_WRITES } from "./held-round.ts";
import type { JobQueue } from "./job-queue.ts";
import {
  emptyWorkerReport,
  failureFields,
  heldKey,
  MAX_WORKER_ROUNDS,
  type DrainOptions,
  type PendingRecord,
  type JobWorkerOptions,
  type JobWorkerReport,
  type JobWorkerResult,
} from "./job-worker-options.ts";

/** A heartbeat extends a held lease each time this fraction of the lease has passed. */
const HEARTBEAT_FRACTION = 3;

/**
 * A worker loop with group commit: each round is one transaction that records the outcomes
 * that have arrived and claims up to `batchSize` due jobs; the jobs are sent with at most
 * `concurrency` in flight. Each job keeps exactly the semantics of
 * `claim` → send → `finish` (its own fencing token, lease and outcome rules); only the commits
 * are shared, so the cost of a commit is divided among the jobs of a round. While the worker
 * holds a job (waiting, sending, or its outcome not yet recorded), a heartbeat extends its lease
 * every third of the lease, so a send may take longer than the lease; a heartbeat refused
 * because the lease was lost ends that job's heartbeats, and its late outcome is refused.
 *
 * A worker has a `sender` for every job, or `handlers` for the kinds it knows (see
 * `defineJobKind`), or both: with handlers it claims only their kinds (and jobs without a kind
 * when it has a sender), so a job of a kind it does not know stays pending for a worker that does.
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
  readonly #routes: KindRoutes;
  readonly #concurrency: number;
  readonly #batchSize: number;
  readonly #rounds: number;
  readonly #claimOptions: ClaimOptions;
  readonly #idleMs: number;
  readonly #onSendError: ((job: ClaimedJob, error: unknown) => void) | undefined;
  readonly #onFinished: ((result: JobWorkerResult) => void) | undefined;
  readonly #beforeRecord: ((outcomes: readonly RecordInput[]) => void) | undefined;
  readonly #onError: ((error: unknown) => void) | undefined;
  readonly #log: VerqLogger;
  readonly #journal: WorkerJournal;
  readonly #trace = new WorkerTrace();

  readonly #waiting: ClaimedJob[] = [];
  readonly #outcomes: PendingRecord[] = [];
  /** The heartbeats of the jobs held, by {@link heldKey}. */
  readonly #held = new HeartbeatClock();
  /** Per job id, the job as its claim or last heartbeat left it (a copy no handler sees): a round decides from it. */
  readonly #states = new Map<string, ClaimedJob>();
  /** Heartbeats under way: a run ends only after they have, so the store is never closed under one. */
  readonly #beats = new Set<Promise<void>>();
  #inFlight = 0;
  #stopping = false;
  #halted = false;
  #claimBudget = Number.POSITIVE_INFINITY;
  #running: Promise<JobWorkerReport> | null = null;
  readonly #alarm = new Alarm();
  /** Jobs the rounds under way are claiming, at most. */
  #claiming = 0;
  /** Leases the rounds under way release on commit beyond the jobs they claim: still held until then. */
  #releasing = 0;
  /** Rounds under way, and rounds done. */
  #underWay = 0;
  #roundsDone = 0;
  /** Whether the last claim found as many jobs as it asked for: the lanes after the first claim only then. */
  #backlog = false;
  #firstLaneDone = false;
  #report = emptyWorkerReport();

  constructor(queue: JobQueue, options: JobWorkerOptions) {
    this.#queue = queue;
    this.#owner = checkIdentifier(options.owner, "the owner", "VERQ_INVALID_ARGUMENT");
    this.#routes = kindRoutes(options);
    this.#concurrency = checkCount(options.concurrency ?? 1, "concurrency");
    this.#batchSize = checkCount(options.batchSize ?? this.#concurrency, "batchSize");
    this.#rounds = checkCount(options.rounds ?? (queue[PARALLEL_WRITES] ? 2 : 1), "rounds", MAX_WORKER_ROUNDS);
    const { kinds } = this.#routes;
    this.#claimOptions = {
      ...(options.leaseMs === undefined ? {} : { leaseMs: checkLeaseMs(options.leaseMs) }),
      ...(options.queues === undefined ? {} : { queues: checkClaimQueues(options.queues) }),
      ...(kinds === undefined ? {} : { kinds }),
    };
    this.#idleMs = checkCount(options.idleMs ?? 100, "idleMs", 3_600_000);
    this.#onSendError = options.onSendError;
    this.#onFinished = options.onFinished;
    this.#beforeRecord = options.beforeRecord;
    this.#onError = options.onError;
    this.#log = options.logger === undefined ? stderrLogger : (options.logger ?? silentLogger);
    this.#journal = new WorkerJournal(this.#log, this.#owner);
  }

  /**
   * Works until nothing is due and nothing is held, then resolves with the report. With
   * `limit`, claims at most that many jobs in all: `drain({ limit: 1 })` does what `runOnce`
   * does, an unexpected send error included (counted in `leftLeased`, passed to `onSendError`).
   * {@link stop} ends a drain early the same way it ends a started worker.
   */
  async drain(options: DrainOptions = {}): Promise<JobWorkerReport> {
    if (this.#running !== null) throw new VerqError("VERQ_INVALID_ARGUMENT", "this worker is already running");
    const limit =
      options.limit === undefined ? Number.POSITIVE_INFINITY : checkCount(options.limit, "limit", Number.MAX_SAFE_INTEGER);
    this.#begin(limit);
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
    this.#begin(Number.POSITIVE_INFINITY);
    const unsubscribe = this.#queue.onEnqueued(() => this.#alarm.ring());
    this.#running = this.#loop(false).finally(unsubscribe);
    // A failed run is reported by stop(); until then it must not count as unhandled.
    this.#running.catch(() => undefined);
  }

  /**
   * Stops claiming, lets the jobs in hand be sent and records their outcomes; then resolves
   * with the report. Rejects with the error of a run that failed (see `onError`).
   */
  async stop(): Promise<JobWorkerReport> {
    this.#stopping = true;
    this.#alarm.ring();
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

  #begin(limit: number): void {
    this.#stopping = false;
    this.#halted = false;
    this.#claimBudget = limit;
    this.#claiming = 0;
    this.#releasing = 0;
    this.#underWay = 0;
    this.#backlog = false;
    this.#firstLaneDone = false;
  }

  async #loop(untilIdle: boolean): Promise<JobWorkerReport> {
    try {
      const lanes = await Promise.allSettled(Array.from({ length: this.#rounds }, (_, lane) => this.#lane(lane, untilIdle)));
      const failed = lanes.find((lane): lane is PromiseRejectedResult => lane.status === "rejected");
      if (failed !== undefined) throw failed.reason;
      return { ...this.#report };
    } finally {
      // On a failed run the jobs still waiting are left to their leases, as after a crash.
      this.#halted = true;
      this.#journal.forget(this.#waiting);
      this.#trace.forget();
      this.#waiting.length = 0;
      for (const key of this.#held.keys()) this.#release(key);
      this.#states.clear();
      // A heartbeat that started before the release still writes: wait for it (it never rejects).
      await Promise.all([...this.#beats]);
    }
  }

  /**
   * One lane of rounds: each round records the outcomes that have arrived and claims what the
   * batch has room for, one transaction at a time. With `rounds` above 1, as many lanes run at
   * once, each a transaction of its own (on its own connection): a round is under way while
   * another commits. The jobs a lane is claiming count as held for the others. The first lane
   * polls and decides when the run ends; the others claim only while the last claim found as
   * many jobs as it asked for (a backlog), record outcomes, and otherwise wait to be woken.
   */
  async #lane(lane: number, untilIdle: boolean): Promise<void> {
    try {
      for (;;) {
        if (this.#halted || (lane > 0 && this.#firstLaneDone)) return;
        // Group commit: let the sends that settle in this turn of the event loop join the round.
        if (this.#outcomes.length > 0) await new Promise((resolve) => setImmediate(resolve));
        if (this.#halted) return;
        const outcomes = this.#outcomes.splice(0, MAX_BATCH_SIZE);
        // Leases held until a commit: each round under way, the more of what it claims and records.
        const held = this.#inFlight + this.#waiting.length + this.#claiming + this.#releasing + this.#outcomes.length;
        const room = Math.min(this.#batchSize * this.#rounds - held, this.#batchSize, this.#claimBudget);
        // Claim in rounds of at least half a batch, so that commits stay shared.
        const claiming =
          !this.#stopping && room > 0 && (held === 0 || room >= Math.ceil(this.#batchSize / 2)) && (lane === 0 || this.#backlog);
        let claimed = 0;
        // Whether another round committed while this one was under way: what it recorded may
        // have freed a queue's slot after this round's claim looked, so finding nothing is no end.
        let overlapped = false;
        if (outcomes.length > 0 || claiming) {
          const want = claiming ? room : 0;
          this.#claiming += want;
          const releasing = Math.max(0, outcomes.length - want);
          this.#releasing += releasing;
          this.#claimBudget -= want;
          this.#underWay++;
          const seen = this.#roundsDone;
          const startedAt = Date.now();
          let round: { accepted: boolean[]; claimed: ClaimedJob[]; expired: LeaseExpiry[] };
          try {
            if (outcomes.length > 0) this.#beforeRecord?.(outcomes);
            // One transaction records the outcomes that arrived and claims the next jobs.
            round = await this.#queue[HELD_ROUND](outcomes, this.#owner, want, this.#claimOptions, this.#heldStates(outcomes));
          } catch (error) {
            this.#underWay--;
            this.#claiming -= want;
            this.#releasing -= releasing;
            this.#claimBudget += want;
            // The transaction changed nothing: keep its outcomes for the next round.
            this.#outcomes.unshift(...outcomes);
            this.#log.error(
              { ...errorFields(error), owner: this.#owner, outcomes: outcomes.length },
              "worker round failed; its outcomes are kept for the next round",
            );
            if (untilIdle || this.#onError === undefined || this.#stopping) throw error;
            this.#report.errors++;
            this.#onError(error);
            await this.#alarm.sleep(this.#idleMs);
            continue;
          }
          claimed = round.claimed.length;
          overlapped = this.#roundsDone !== seen;
          this.#roundsDone++;
          this.#underWay--;
          this.#claiming -= want;
          this.#releasing -= releasing;
          this.#claimBudget += want - claimed;
          if (claiming) this.#backlog = claimed === want;
          this.#report.claimed += claimed;
          if (claiming) this.#report.claimTransactions++;
          this.#journal.claims(round.claimed, round.expired);
          for (const job of round.claimed) this.#hold(job);
          this.#waiting.push(...round.claimed);
          this.#startSends();
          this.#recorded(outcomes, round.accepted, startedAt);
          // What this round claimed or recorded may give the other lanes work, or room, again.
          if (this.#rounds > 1 && (claimed > 0 || outcomes.length > 0)) this.#alarm.ring();
        }
        if (this.#outcomes.length > 0) continue;
        if (lane > 0) {
          // Checked right before waiting (nothing runs between the check and the wait): a lane
          // that waited after the first lane ended would never be woken.
          if (this.#firstLaneDone || this.#halted) return;
          await this.#alarm.sleep(null);
          continue;
        }
        // Another lane's round under way may record an outcome that frees a queue's slot, or claim.
        const busy = this.#inFlight > 0 || this.#waiting.length > 0 || this.#underWay > 0;
        const found = claimed > 0 || overlapped;
        if (!busy && (this.#stopping || (untilIdle && !found))) return;
        // Wait for a send to settle or a job to be enqueued (both wake the loop), or poll again.
        if (busy || !found) await this.#alarm.sleep(this.#idleMs);
      }
    } catch (error) {
      // The other lanes stop with this one: the run has failed.
      this.#halted = true;
      throw error;
    } finally {
      if (lane === 0) this.#firstLaneDone = true;
      // A lane that ends may leave the others waiting: let them look again.
      this.#alarm.ring();
    }
  }

  #startSends(): void {
    while (!this.#halted && this.#inFlight < this.#concurrency) {
      const job = this.#waiting.shift();
      if (job === undefined) return;
      this.#inFlight++;
      void this.#send(job);
    }
  }

  /**
   * Sends one job and queues what it came to for the next round; never rejects. A failure whose
   * effect is unknown (SPEC J5) is logged once, counted, ends the job's heartbeats (its lease
   * runs out) and is queued as a `failed` record: the round appends `job.failed`.
   */
  async #send(job: ClaimedJob): Promise<void> {
    const key = heldKey(job.id, job.token);
    const sentAt = performance.now();
    const { send, classify } = this.#routes.route(job);
    const span = this.#trace.handle(job);
    const verdict = await span.run(() => sendForOutcome(send, job, classify));
    this.#trace.handled(job, span, verdict);
    const handlerMs = elapsedMs(sentAt);
    const about = { queue: job.queue, kind: job.kind, handlerMs };
    if ("error" in verdict) {
      this.#report.leftLeased++;
      this.#report.errors++;
      this.#release(key);
      this.#log.error(
        { id: job.id, token: job.token, owner: this.#owner, attempt: job.attempts, ...failureFields(verdict.failure), ...about },
        "handler failed; the failure is recorded and the job stays leased until its lease expires (J5)",
      );
      this.#outcomes.push({ id: job.id, token: job.token, outcome: "failed", failure: verdict.failure, ...about });
      this.#onSendError?.(job, verdict.error);
    } else {
      this.#outcomes.push({ id: job.id, token: job.token, outcome: verdict.outcome, failure: verdict.failure, ...about });
    }
    this.#inFlight--;
    this.#startSends();
    this.#alarm.ring();
  }

  /** Counts the outcomes a round (started at `startedAt`) recorded, ends their jobs' heartbeats and reports each. */
  #recorded(outcomes: readonly PendingRecord[], accepted: readonly boolean[], startedAt: number): void {
    if (outcomes.length === 0) return;
    this.#report.finishTransactions++;
    this.#trace.finished(outcomes, accepted, startedAt);
    const results = outcomes.map((record, i): JobWorkerResult => {
      this.#release(heldKey(record.id, record.token));
      if (this.#states.get(record.id)?.token === record.token) this.#states.delete(record.id);
      const ok = accepted[i] === true;
      if (!ok) this.#report.refused++;
      else if (record.outcome !== "failed") this.#report[record.outcome]++;
      const { id, token, outcome, queue, kind, handlerMs } = record;
      const result = { id, token, outcome, accepted: ok, queue, kind, failure: record.failure ?? null, handlerMs };
      this.#journal.outcome(result);
      return result;
    });
    if (this.#onFinished !== undefined) for (const result of results) this.#onFinished(result);
  }

  /** Starts the heartbeats of a job just claimed: every third of its lease, until released. */
  #hold(job: ClaimedJob): void {
    this.#states.set(job.id, Object.freeze({ ...job }));
    // A fresh claim's last event is the claim itself: its lease runs from updatedAt.
    const leaseMs = job.leaseUntil - job.updatedAt;
    if (leaseMs < 1) return;
    const key = heldKey(job.id, job.token);
    this.#held.hold(key, Math.floor(leaseMs / HEARTBEAT_FRACTION), () => {
      const beat = this.#heartbeat(key, job, leaseMs);
      this.#beats.add(beat);
      void beat.finally(() => this.#beats.delete(beat));
    });
  }

  async #heartbeat(key: string, job: ClaimedJob, leaseMs: number): Promise<void> {
    const held = this.#held.get(key);
    if (held === undefined || held.beating) return;
    held.beating = true;
    try {
      const extended = await this.#queue[EXTEND_LEASE](job.id, job.token, leaseMs);
      // Refused: the lease was lost (or the outcome is already recorded); beating on is useless.
      if (extended === null) this.#release(key);
      else {
        this.#report.heartbeats++;
        if (this.#states.get(job.id)?.token === job.token) this.#states.set(job.id, Object.freeze({ ...extended }));
      }
    } catch (error) {
      this.#report.errors++;
      this.#log.error({ ...errorFields(error), id: job.id, token: job.token, owner: this.#owner }, "heartbeat failed");
      this.#onError?.(error);
    } finally {
      held.beating = false;
    }
  }

  /** The held states of the jobs whose outcomes a round records. */
  #heldStates(outcomes: readonly PendingRecord[]): Map<string, ClaimedJob> {
    return new Map(outcomes.flatMap(({ id }) => (this.#states.has(id) ? [[id, this.#states.get(id) as ClaimedJob]] : [])));
  }

  #release(key: string): void {
    this.#held.release(key);
  }
}
