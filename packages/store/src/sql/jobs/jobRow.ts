import type { DeadReason, Job, JobState, JsonValue } from "@verq/core";
import type { Selectable } from "kysely";
import type { JobsTable } from "../../schema.ts";
import type { BatchValue } from "../batchValues.ts";

/** A `jobs` row as read back. */
export type JobRow = Selectable<JobsTable>;

/** Maps a projection row to the domain's `Job`. */
export function rowToJob(row: JobRow): Job {
  return {
    id: row.id,
    payload: JSON.parse(row.payload) as JsonValue,
    state: row.state as JobState,
    token: Number(row.token),
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    deadline: Number(row.deadline),
    availableAt: Number(row.available_at),
    owner: row.owner,
    leaseUntil: row.lease_until === null ? null : Number(row.lease_until),
    reason: row.reason as DeadReason | null,
    deadSince: row.dead_since === null ? null : Number(row.dead_since),
    orderingKey: row.ordering_key,
    leaseExpiries: Number(row.lease_expiries),
    enqueuedAt: Number(row.enqueued_at),
    updatedAt: Number(row.updated_at),
    version: Number(row.version),
  };
}

/** The columns that change when a job's stream moves on (everything but id, payload and enqueue facts). */
export function mutableColumns(job: Job) {
  return {
    state: job.state,
    token: job.token,
    attempts: job.attempts,
    max_attempts: job.maxAttempts,
    deadline: job.deadline,
    available_at: job.availableAt,
    owner: job.owner,
    lease_until: job.leaseUntil,
    reason: job.reason,
    dead_since: job.deadSince,
    lease_expiries: job.leaseExpiries,
    updated_at: job.updatedAt,
    version: job.version,
  };
}

/** A full row for a new job. `payloadJson` is the canonical text stored in the event. */
export function jobToRow(job: Job, payloadJson: string, enqueuePosition: number): JobRow {
  return {
    id: job.id,
    payload: payloadJson,
    ordering_key: job.orderingKey,
    enqueued_at: job.enqueuedAt,
    enqueue_position: enqueuePosition,
    ...mutableColumns(job),
  };
}

/**
 * The column names and values of rows built by `jobToRow` / `mutableColumns` (this file is the
 * one place that maps a job to columns). Every row comes from the same builder, so every row
 * lists its columns in the same order.
 */
export function columnsAndValues(rows: readonly Record<string, BatchValue>[]): { names: string[]; values: BatchValue[][] } {
  return { names: Object.keys(rows[0] ?? {}), values: rows.map((row) => Object.values(row)) };
}
