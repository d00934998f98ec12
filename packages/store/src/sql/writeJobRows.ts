import { JOB_STREAM, VersionConflict, type Job } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";
import { executeBatch, type BatchValue } from "./batchValues.ts";

/** The projection's changing columns, in the order the batch statements read them. */
function mutableValues(job: Job): BatchValue[] {
  return [
    job.state,
    job.token,
    job.attempts,
    job.maxAttempts,
    job.deadline,
    job.availableAt,
    job.owner,
    job.leaseUntil,
    job.reason,
    job.deadSince,
    job.leaseExpiries,
    job.updatedAt,
    job.version,
  ];
}

const MUTABLE_COLUMNS =
  "state, token, attempts, max_attempts, deadline, available_at, owner, lease_until, reason, dead_since, lease_expiries, updated_at, version";
/** `v.column1` … `v.column13`: the mutable columns of one VALUES row. */
const MUTABLE_PICKS = Array.from({ length: 13 }, (_, i) => `v.column${i + 1}`).join(", ");

/** A new job's row: the job, its canonical payload text and the position of its enqueued event. */
export interface NewJobRow {
  readonly job: Job;
  readonly payloadJson: string;
  readonly enqueuePosition: number;
}

/** Inserts the `jobs` rows of new jobs in one multi-row statement. */
export async function insertJobRows(trx: Kysely<VerqDatabase>, rows: readonly NewJobRow[]): Promise<void> {
  if (rows.length === 0) return;
  const values = rows.map((r) => [...mutableValues(r.job), r.job.id, r.payloadJson, r.job.orderingKey, r.job.enqueuedAt, r.enqueuePosition]);
  await executeBatch(trx, values, (v) => `insert into jobs (${MUTABLE_COLUMNS}, id, payload, ordering_key, enqueued_at, enqueue_position) values ${v}`);
}

/** A job that moved on: its row is rewritten from `after` if it is still at `beforeVersion`. */
export interface JobRowChange {
  readonly after: Job;
  readonly beforeVersion: number;
}

/**
 * Rewrites the `jobs` rows of jobs that moved on, in one statement, each only if its row is
 * still at the version the decision was made on. Any row that moved meanwhile makes the whole
 * write fail with `VERQ_VERSION_CONFLICT` (the caller's transaction rolls back).
 */
export async function updateJobRows(trx: Kysely<VerqDatabase>, changes: readonly JobRowChange[]): Promise<void> {
  if (changes.length === 0) return;
  const values = changes.map((c) => [...mutableValues(c.after), c.after.id, c.beforeVersion]);
  const result = await executeBatch(
    trx,
    values,
    (v) => `update jobs set (${MUTABLE_COLUMNS}) = (${MUTABLE_PICKS})
      from (values ${v}) as v where jobs.id = v.column14 and jobs.version = v.column15`,
  );
  if (result.affected !== changes.length) {
    const first = changes[0];
    throw new VersionConflict(JOB_STREAM, first?.after.id ?? "", first?.beforeVersion ?? 0);
  }
}
