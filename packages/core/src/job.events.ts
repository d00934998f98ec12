import type { JsonValue } from "./json.ts";
import type { DeadReason } from "./job.types.ts";

/** The stream type under which job events are stored. */
export const JOB_STREAM = "job";

export interface JobEnqueued {
  readonly type: "job.enqueued";
  readonly data: {
    readonly id: string;
    readonly payload: JsonValue;
    readonly maxAttempts: number;
    readonly deadline: number;
    readonly availableAt: number;
    readonly orderingKey: string | null;
    readonly at: number;
  };
}
export interface JobClaimed {
  readonly type: "job.claimed";
  readonly data: { readonly token: number; readonly owner: string; readonly leaseUntil: number; readonly at: number };
}
export interface JobLeaseExpired {
  readonly type: "job.leaseExpired";
  readonly data: { readonly token: number; readonly owner: string | null; readonly at: number };
}
export interface JobLeaseExtended {
  readonly type: "job.leaseExtended";
  readonly data: { readonly token: number; readonly leaseUntil: number; readonly at: number };
}
export interface JobCompleted {
  readonly type: "job.completed";
  readonly data: { readonly token: number; readonly at: number };
}
export interface JobRetryScheduled {
  readonly type: "job.retryScheduled";
  readonly data: { readonly token: number; readonly availableAt: number; readonly at: number };
}
export interface JobDied {
  readonly type: "job.died";
  readonly data: { readonly token: number; readonly reason: DeadReason; readonly at: number };
}
export interface JobRedriven {
  readonly type: "job.redriven";
  readonly data: { readonly previousToken: number; readonly note: string; readonly deadline: number; readonly at: number };
}

/** Every fact recorded about a job. Names are namespaced `job.*` strings. */
export type JobEvent =
  JobEnqueued | JobClaimed | JobLeaseExpired | JobLeaseExtended | JobCompleted | JobRetryScheduled | JobDied | JobRedriven;

export type JobEventType = JobEvent["type"];

/** Typed creators: the only place event type strings are spelled. */
export const jobEvents = {
  enqueued: (data: JobEnqueued["data"]): JobEnqueued => ({ type: "job.enqueued", data }),
  claimed: (data: JobClaimed["data"]): JobClaimed => ({ type: "job.claimed", data }),
  leaseExpired: (data: JobLeaseExpired["data"]): JobLeaseExpired => ({ type: "job.leaseExpired", data }),
  leaseExtended: (data: JobLeaseExtended["data"]): JobLeaseExtended => ({ type: "job.leaseExtended", data }),
  completed: (data: JobCompleted["data"]): JobCompleted => ({ type: "job.completed", data }),
  retryScheduled: (data: JobRetryScheduled["data"]): JobRetryScheduled => ({ type: "job.retryScheduled", data }),
  died: (data: JobDied["data"]): JobDied => ({ type: "job.died", data }),
  redriven: (data: JobRedriven["data"]): JobRedriven => ({ type: "job.redriven", data }),
} as const;

/** All job event type names, for validation of stored rows. */
export const JOB_EVENT_TYPES: readonly JobEventType[] = [
  "job.enqueued",
  "job.claimed",
  "job.leaseExpired",
  "job.leaseExtended",
  "job.completed",
  "job.retryScheduled",
  "job.died",
  "job.redriven",
];
