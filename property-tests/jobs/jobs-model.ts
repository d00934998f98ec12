import type { ArchivedJob, DeadReason, HandledKinds, Job, JobFailure, JsonValue } from "@verq/core";
import { modelFail } from "./model-assert.ts";

/** The business ids the commands draw from: few, so that re-enqueues and collisions are common. */
export const JOB_IDS = ["job-a", "job-b", "job-c"] as const;
/** The named queues jobs are enqueued into; every claim asks for all of them. */
export const JOB_QUEUES = ["default", "q1", "q2"] as const;
/**
 * The queues commands draw from: `q1` three times as often, so that two jobs share a limited queue
 * (the case where a batch claim fills a queue midway) often enough to be seen.
 */
export const DRAWN_QUEUES = ["default", "q1", "q1", "q1", "q2"] as const;
/** The kinds enqueues draw from: none twice as often as each kind, so that most claims see all three. */
export const DRAWN_KINDS = [null, null, "mail", "resize"] as const;
/**
 * The kinds a claim limited to kinds handles (`claimKinds`): one kind, one kind and kindless jobs,
 * kindless jobs only, both kinds.
 */
export const CLAIM_KIND_SETS: readonly HandledKinds[] = [
  { names: ["mail"], kindless: false },
  { names: ["resize"], kindless: true },
  { names: [], kindless: true },
  { names: ["mail", "resize"], kindless: false },
];
/** The priorities enqueues choose from. */
export const JOB_PRIORITIES = [-1, 0, 2] as const;
/** The workers that claim, finish, heartbeat and die. */
export const WORKERS = ["w1", "w2", "w3"] as const;
/** The backoff of the queue under test: small, with jitter, so retries land near deadlines. */
export const MODEL_BACKOFF = { baseMs: 10, factor: 2, maxMs: 40, jitter: "equal" } as const;

/** A claim as the worker that made it remembers it; it may have gone stale since. */
export interface HeldClaim {
  readonly worker: string;
  readonly id: string;
  readonly token: number;
}

/** The audit facts of the last accepted redrive, as `stats().lastRedrive` must report them. */
export interface ModelRedrive {
  readonly jobId: string;
  readonly at: number;
  readonly note: string;
  readonly previousToken: number;
}

/**
 * The reference model of the job queue (SPEC J1–J6), written without the production machine:
 * the exact projection every job must have, every token a claim handed out, every accepted
 * finish, and what each worker believes it holds. Transitions return the expected job; the
 * commands store it after they have checked the real queue against it.
 */
export class JobsModel {
  now: number;
  readonly jobs = new Map<string, Job>();
  /** Identity of each job's payload, for the J2 same-payload / different-payload rule. */
  readonly payloadKeys = new Map<string, string>();
  /** Every token a claim handed out, per job, in order (property a). */
  readonly tokensIssued = new Map<string, number[]>();
  /** `id#token` of every accepted finish (property c). */
  readonly acceptedFinishes = new Set<string>();
  held: HeldClaim[] = [];
  lastRedrive: ModelRedrive | null = null;
  /** Each job's deadline window at its enqueue: a redrive without a deadline gives it again (J6). */
  readonly windows = new Map<string, number>();
  /** When each accepted redrive happened, for the rate limit (J7). */
  readonly redriveTimes: number[] = [];
  /** Each queue's global concurrency limit; a queue that is not here has none. */
  readonly limits = new Map<string, number>();
  /** Retention: what the archive keeps of each pruned job, by id (the job itself is gone from {@link jobs}). */
  readonly archive = new Map<string, ArchivedJob>();
  /** The highest global event position seen so far: it never goes backwards, not even when a prune deletes events. */
  highestPosition = 0;

  constructor(now: number) {
    this.now = now;
  }

  /**
   * The job's place in enqueue order (0 for the first id ever enqueued): the order `jobs` holds
   * them in, since an id is added once, at its first enqueue, and never removed.
   */
  enqueuePosition(id: string): number {
    return [...this.jobs.keys()].indexOf(id);
  }

  /** The expected job, or a model failure when the id was never enqueued. */
  job(id: string): Job {
    return this.jobs.get(id) ?? modelFail("model", `job ${id} is not in the model`);
  }

  /**
   * Jobs a claim may hand out now (J3): due pending ones of a queue with a free slot, and expired
   * leases with budget left (their take-over keeps the queue's count), of the kinds the claim
   * handles (every job without `kinds`). A spent lease the claim quarantines on the way frees its
   * slot first.
   */
  claimable(kinds?: HandledKinds): Job[] {
    return [...this.jobs.values()].filter(
      (j) =>
        handles(kinds, j) &&
        ((j.state === "pending" && j.availableAt <= this.now && this.room(j.queue, kinds) > 0) ||
          (this.leaseExpired(j) && j.attempts < j.maxAttempts)),
    );
  }

  /** The jobs of `queue` that are leased now (expired leases included): what its limit is judged by. */
  leasedIn(queue: string): number {
    return [...this.jobs.values()].filter((j) => j.queue === queue && j.state === "leased").length;
  }

  /** Free slots of `queue` for pending jobs once the spent leases a claim of `kinds` meets have gone dead. */
  room(queue: string, kinds?: HandledKinds): number {
    const limit = this.limits.get(queue);
    if (limit === undefined) return Number.POSITIVE_INFINITY;
    const freed = this.doomed(kinds).filter((j) => j.queue === queue).length;
    return Math.max(0, limit - (this.leasedIn(queue) - freed));
  }

  /** How many jobs a batch claim of `max` (of `kinds`) must get: take-overs, then each queue's due jobs up to its room. */
  claimCapacity(max: number, kinds?: HandledKinds): number {
    const mine = [...this.jobs.values()].filter((j) => handles(kinds, j));
    const takeovers = mine.filter((j) => this.leaseExpired(j) && j.attempts < j.maxAttempts).length;
    let pending = 0;
    for (const queue of new Set(mine.map((j) => j.queue))) {
      const due = mine.filter((j) => j.queue === queue && j.state === "pending" && j.availableAt <= this.now);
      pending += Math.min(due.length, this.room(queue, kinds));
    }
    return Math.min(max, takeovers + pending);
  }

  /** Expired leases whose last attempt is spent: a claim (of `kinds`) that meets one quarantines it. */
  doomed(kinds?: HandledKinds): Job[] {
    return [...this.jobs.values()].filter((j) => handles(kinds, j) && this.leaseExpired(j) && j.attempts >= j.maxAttempts);
  }

  /**
   * J3: at `now == leaseUntil` the lease is expired (the boundary belongs to the next claimer).
   * Judged against the wall clock's `now` whatever it did: after a backwards jump a lease lasts
   * longer by the jump (one that had run out and was not taken over is live again), never shorter.
   */
  leaseExpired(job: Job): boolean {
    return job.state === "leased" && job.leaseUntil !== null && this.now >= job.leaseUntil;
  }

  enqueued(input: {
    id: string;
    payload: JsonValue;
    maxAttempts: number;
    deadline: number;
    availableAt: number;
    queue: string;
    priority: number;
    kind?: string;
  }): Job {
    return {
      id: input.id,
      payload: input.payload,
      state: "pending",
      token: 0,
      attempts: 0,
      maxAttempts: input.maxAttempts,
      deadline: input.deadline,
      availableAt: input.availableAt,
      owner: null,
      leaseUntil: null,
      reason: null,
      deadSince: null,
      orderingKey: null,
      queue: input.queue,
      priority: input.priority,
      kind: input.kind ?? null,
      lastFailure: null,
      leaseExpiries: 0,
      enqueuedAt: this.now,
      updatedAt: this.now,
      version: 1,
    };
  }

  /** J3: token + 1, attempts + 1, owner and lease set; taking over an expired lease counts it. */
  claimed(job: Job, owner: string, leaseMs: number): Job {
    const takeover = job.state === "leased";
    return {
      ...job,
      state: "leased",
      token: job.token + 1,
      attempts: job.attempts + 1,
      owner,
      leaseUntil: this.now + leaseMs,
      leaseExpiries: job.leaseExpiries + (takeover ? 1 : 0),
      updatedAt: this.now,
      version: job.version + (takeover ? 2 : 1),
    };
  }

  /** A claim met an expired lease whose budget is spent: the expiry, then `dead(exhausted)`. */
  expiredExhausted(job: Job): Job {
    return { ...this.died(job, "exhausted"), leaseExpiries: job.leaseExpiries + 1, version: job.version + 2 };
  }

  died(job: Job, reason: DeadReason): Job {
    return {
      ...job,
      state: "dead",
      owner: null,
      leaseUntil: null,
      reason,
      deadSince: this.now,
      updatedAt: this.now,
      version: job.version + 1,
    };
  }

  completed(job: Job): Job {
    return { ...job, state: "done", owner: null, leaseUntil: null, updatedAt: this.now, version: job.version + 1 };
  }

  /**
   * J4 `retry`: exhausted first, then the deadline, else pending at now + backoff. The jitter is
   * drawn by the queue, so the model bounds it and reads the draw from `observed`.
   */
  retried(job: Job, observed: Job | null): Job {
    if (job.attempts >= job.maxAttempts) return this.died(job, "exhausted");
    const [lo, hi] = backoffRange(job.attempts);
    if (this.now + lo >= job.deadline) return this.died(job, "deadline");
    const mayDie = this.now + hi >= job.deadline;
    if (mayDie && observed?.state === "dead") return this.died(job, "deadline");
    if (observed?.state !== "pending") {
      modelFail("J4 retry", `${job.id}: a retry with budget and time left must be pending, found ${observed?.state}`);
    }
    const availableAt = observed.availableAt;
    const latest = Math.min(this.now + hi, job.deadline - 1);
    if (availableAt < this.now + lo || availableAt > latest) {
      modelFail("J4 retry", `${job.id}: availableAt ${availableAt} outside [${this.now + lo}, ${latest}]`);
    }
    return {
      ...job,
      state: "pending",
      owner: null,
      leaseUntil: null,
      availableAt,
      updatedAt: this.now,
      version: job.version + 1,
    };
  }

  /**
   * J5: a failure of the current token's attempt is recorded on the job (its attempt, token and
   * time); the state, token, attempts, owner and lease stay as they were.
   */
  failed(job: Job, failure: JobFailure): Job {
    const lastFailure = { ...failure, attempt: job.attempts, token: job.token, at: this.now };
    return { ...job, lastFailure, updatedAt: this.now, version: job.version + 1 };
  }

  heartbeated(job: Job, leaseMs: number): Job {
    return { ...job, leaseUntil: this.now + leaseMs, updatedAt: this.now, version: job.version + 1 };
  }

  /** J6: pending, attempts 0, new deadline, due now; the token is kept. */
  redriven(job: Job, deadline: number): Job {
    return {
      ...job,
      state: "pending",
      attempts: 0,
      deadline,
      availableAt: this.now,
      reason: null,
      deadSince: null,
      updatedAt: this.now,
      version: job.version + 1,
    };
  }

  /** An operator's cancel of a pending or leased job: dead(`cancelled`), the token kept, the lease gone. */
  cancelled(job: Job): Job {
    return this.died(job, "cancelled");
  }

  /** J7: the redrives at or after `now - windowMs + 1`, as the queue counts them. */
  recentRedrives(windowMs: number): number {
    return this.redriveTimes.filter((at) => at >= this.now - windowMs + 1).length;
  }

  /**
   * Retention: the jobs a prune with these cutoffs removes, oldest change first (ties by id), as
   * the prune walks them: done ones that finished at or before `doneCutoff`, dead ones that died
   * at or before `deadCutoff` when there is one; never a pending or leased job.
   */
  prunable(doneCutoff: number, deadCutoff: number | null): Job[] {
    return byChange([...this.jobs.values()]).filter((j) =>
      j.state === "done"
        ? j.updatedAt <= doneCutoff
        : j.state === "dead" && deadCutoff !== null && j.deadSince !== null && j.deadSince <= deadCutoff,
    );
  }

  /** What the archive keeps of `job`, pruned now: its final state, token and reason, and when it finished. */
  archived(job: Job): ArchivedJob {
    if (job.state !== "done" && job.state !== "dead") modelFail("model", `${job.id} is ${job.state}, not finished`);
    return {
      id: job.id,
      state: job.state,
      token: job.token,
      reason: job.reason,
      enqueuedAt: job.enqueuedAt,
      finishedAt: job.updatedAt,
      prunedAt: this.now,
    };
  }

  forget(claim: HeldClaim): void {
    this.held = this.held.filter((c) => c !== claim);
  }
}

/** Whether a claim of `kinds` handles `job` (every job without `kinds`): its kind is named, or it has none and `kindless`. */
export function handles(kinds: HandledKinds | undefined, job: Job): boolean {
  if (kinds === undefined) return true;
  return job.kind === null ? kinds.kindless : kinds.names.includes(job.kind);
}

/** The jitter range of {@link MODEL_BACKOFF} after the `attempt`-th attempt: `equal` jitter. */
export function backoffRange(attempt: number): readonly [number, number] {
  const raw = MODEL_BACKOFF.baseMs * MODEL_BACKOFF.factor ** Math.max(0, attempt - 1);
  const capped = Math.min(MODEL_BACKOFF.maxMs, raw);
  return [Math.round(capped / 2), capped];
}

/** `jobs` oldest change first, ties by id: the order a prune looks at them. */
export function byChange(jobs: readonly Job[]): Job[] {
  return [...jobs].sort((a, b) => a.updatedAt - b.updatedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
