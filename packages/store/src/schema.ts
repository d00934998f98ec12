import type { Generated } from "kysely";

/** One row of the append-only event log. */
export interface EventsTable {
  position: Generated<number>;
  stream_type: string;
  stream_id: string;
  version: number;
  type: string;
  /** The event's data as JSON text. */
  data: string;
  at_ms: number;
}

/** The `jobs` projection: one row per job, the fold of its stream. */
export interface JobsTable {
  id: string;
  payload: string;
  state: string;
  token: number;
  attempts: number;
  max_attempts: number;
  deadline: number;
  available_at: number;
  owner: string | null;
  lease_until: number | null;
  reason: string | null;
  dead_since: number | null;
  ordering_key: string | null;
  lease_expiries: number;
  enqueued_at: number;
  /** Position of the `job.enqueued` event: the enqueue order that ordering keys follow. */
  enqueue_position: number;
  updated_at: number;
  version: number;
}

/** The `redrives` projection: the audit trail of SPEC J6, one row per `job.redriven` event. */
export interface RedrivesTable {
  position: number;
  job_id: string;
  previous_token: number;
  at_ms: number;
  note: string;
}

/** Operational counters that are not part of any job's state (e.g. stale finishes refused). */
export interface CountersTable {
  name: string;
  value: number;
}

/** One receipt per idempotency key: the first answer, replayed for every repeat. */
export interface ReceiptsTable {
  key: string;
  response: string;
  at_ms: number;
}

/** The whole database as Kysely sees it. */
export interface VerqDatabase {
  events: EventsTable;
  jobs: JobsTable;
  redrives: RedrivesTable;
  counters: CountersTable;
  receipts: ReceiptsTable;
}
