import type { DeadReason, Job, JobState, JsonValue, RecordedFailure, TraceContext } from "@verq/core";
import type { Selectable } from "kysely";
import type { JobsTable } from "../../schema.ts";
import type { BatchColumnType } from "../../dialect/statements.ts";
import type { BatchValue } from "../batchValues.ts";

/** A `jobs` row as read back. */
export type JobRow = Selectable<JobsTable>;

/**
 * The `jobs` columns in the order {@link valuesToJob} reads them: the select list of the hot
 * reads (claim candidates, jobs by id), whose rows come back as arrays of column values.
 */
const JOB_COLUMN_NAMES = [
  "id",
  "payload",
  "state",
  "token",
  "attempts",
  "max_attempts",
  "deadline",
  "available_at",
  "owner",
  "lease_until",
  "reason",
  "dead_since",
  "ordering_key",
  "lease_expiries",
  "enqueued_at",
  "updated_at",
  "version",
  "queue",
  "priority",
  "kind",
  "last_failure",
  "trace_context",
] as const satisfies readonly (keyof JobRow)[];
export const JOB_COLUMNS = JOB_COLUMN_NAMES.join(", ");
/** How many columns {@link JOB_COLUMNS} lists: a query may select more after them. */
export const JOB_COLUMN_COUNT = JOB_COLUMN_NAMES.length;
/** The place of `name` in {@link JOB_COLUMNS}. */
export const columnIndex = (name: (typeof JOB_COLUMN_NAMES)[number]): number => JOB_COLUMN_NAMES.indexOf(name);

/** Maps a projection row read as an object (the cold paths: one job, a listing) to the domain's `Job`. */
export function rowToJob(row: JobRow): Job {
  return valuesToJob(JOB_COLUMN_NAMES.map((name) => row[name]));
}

/** Maps the values of a row selected with {@link JOB_COLUMNS}, in that order, to the domain's `Job`. */
export function valuesToJob(values: readonly unknown[]): Job {
  const nullable = (value: unknown): number | null => (value === null ? null : Number(value));
  const job: Job = {
    id: values[0] as string,
    payload: JSON.parse(values[1] as string) as JsonValue,
    state: values[2] as JobState,
    token: Number(values[3]),
    attempts: Number(values[4]),
    maxAttempts: Number(values[5]),
    deadline: Number(values[6]),
    availableAt: Number(values[7]),
    owner: values[8] as string | null,
    leaseUntil: nullable(values[9]),
    reason: values[10] as DeadReason | null,
    deadSince: nullable(values[11]),
    orderingKey: values[12] as string | null,
    leaseExpiries: Number(values[13]),
    enqueuedAt: Number(values[14]),
    updatedAt: Number(values[15]),
    version: Number(values[16]),
    queue: values[17] as string,
    priority: Number(values[18]),
    kind: values[19] as string | null,
    lastFailure: values[20] === null ? null : (JSON.parse(values[20] as string) as RecordedFailure),
  };
  // Absent, not null, for a job enqueued outside any trace, as in the fold of its events; added
  // after the literal, so that every job read without one keeps the literal's shape (a hot path).
  return values[21] === null ? job : { ...job, traceContext: JSON.parse(values[21] as string) as TraceContext };
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
    last_failure: job.lastFailure === null ? null : JSON.stringify(job.lastFailure),
  };
}

/** A full row for a new job. `payloadJson` is the canonical text stored in the event. */
export function jobToRow(job: Job, payloadJson: string, enqueuePosition: number): JobRow {
  return {
    id: job.id,
    payload: payloadJson,
    ordering_key: job.orderingKey,
    queue: job.queue,
    priority: job.priority,
    kind: job.kind,
    trace_context: job.traceContext === undefined ? null : JSON.stringify(job.traceContext),
    enqueued_at: job.enqueuedAt,
    enqueue_position: enqueuePosition,
    ...mutableColumns(job),
  };
}

/** The SQL type of each `jobs` column, as the batch statements bind it (see migration 001). */
export const JOB_COLUMN_TYPES: Readonly<Record<keyof JobRow, BatchColumnType>> = {
  id: "text",
  payload: "text",
  state: "text",
  token: "integer",
  attempts: "integer",
  max_attempts: "integer",
  deadline: "bigint",
  available_at: "bigint",
  owner: "text",
  lease_until: "bigint",
  reason: "text",
  dead_since: "bigint",
  ordering_key: "text",
  queue: "text",
  priority: "integer",
  lease_expiries: "integer",
  enqueued_at: "bigint",
  enqueue_position: "bigint",
  updated_at: "bigint",
  version: "integer",
  kind: "text",
  last_failure: "text",
  trace_context: "text",
};

/**
 * The column names, their SQL types and the values of rows built by `jobToRow` /
 * `mutableColumns` (this file is the one place that maps a job to columns). Every row comes from
 * the same builder, so every row lists its columns in the same order.
 */
export function columnsAndValues(rows: readonly Record<string, BatchValue>[]): {
  names: string[];
  types: BatchColumnType[];
  values: BatchValue[][];
} {
  const names = Object.keys(rows[0] ?? {});
  return { names, types: names.map((n) => JOB_COLUMN_TYPES[n as keyof JobRow]), values: rows.map((row) => Object.values(row)) };
}
