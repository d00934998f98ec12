import type { JsonValue } from "./json.ts";

/** The four states of a job (SPEC J1). */
export type JobState = "pending" | "leased" | "done" | "dead";

/** Why a job is dead: a permanent failure, the attempt budget spent, or the deadline reached. */
export type DeadReason = "permanent" | "exhausted" | "deadline";

/** What a worker reports for an attempt (SPEC J4). */
export type FinishOutcome = "ok" | "retry" | "permanent";

/**
 * A job as the projection holds it: the fold of its events. `token` is the fencing token: it
 * goes up by exactly 1 per claim and is never reset, not even by a redrive.
 */
export interface Job {
  readonly id: string;
  readonly payload: JsonValue;
  readonly state: JobState;
  readonly token: number;
  readonly attempts: number;
  readonly maxAttempts: number;
  /** Absolute time (ms) at or after which no retry is scheduled. */
  readonly deadline: number;
  readonly availableAt: number;
  readonly owner: string | null;
  readonly leaseUntil: number | null;
  readonly reason: DeadReason | null;
  readonly deadSince: number | null;
  /** Jobs sharing a key run one at a time in enqueue order; a dead head blocks its group only. */
  readonly orderingKey: string | null;
  readonly leaseExpiries: number;
  readonly enqueuedAt: number;
  readonly updatedAt: number;
  /** Version of the job's event stream: the number of events applied. */
  readonly version: number;
}
