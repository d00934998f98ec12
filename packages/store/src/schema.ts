import type { Generated } from "kysely";

/**
 * One row of the append-only event log: no event is ever updated, and a job's events are never
 * deleted (database triggers refuse both). UNIQUE(stream_type, stream_id, version) is the only
 * arbiter of a race between two writers of one stream.
 */
export interface EventsTable {
  /** Global order of the log, assigned by the database on insert. */
  position: Generated<number>;
  /** The stream's kind, e.g. `job` or `guid` (the `*_STREAM` constants of `@verq/core`). */
  stream_type: string;
  /** The stream's id within its kind: a job id, a GUID, a message id. */
  stream_id: string;
  /** The event's place in its stream, from 1, without gaps. */
  version: number;
  /** The namespaced event type (`job.claimed`, …). */
  type: string;
  /** The event's data as JSON text. */
  data: string;
  /** The event's `at`: the time of the decision, in ms since the epoch. */
  at_ms: number;
  /** The version of the event's shape it was written with (1 unless its stream declares a newer one; migration 013). */
  schema_version: Generated<number>;
}

/**
 * The `jobs` projection: one row per job, the fold of its stream, written in the same
 * transaction as the events. Columns mirror `Job` in `@verq/core`; checks hold `reason` set
 * exactly when `state` is `dead`, and `lease_until` exactly when `leased` (SPEC J1).
 */
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
  /** The job's named queue (`default` for jobs written before migration 006). */
  queue: string;
  priority: number;
  lease_expiries: number;
  enqueued_at: number;
  /** Position of the `job.enqueued` event: the enqueue order that ordering keys follow. */
  enqueue_position: number;
  updated_at: number;
  version: number;
  /** The job's kind, or `null` (migration 011). */
  kind: string | null;
  /** The job's last failure as JSON (`RecordedFailure`: identifiers only), or `null` (migration 011). */
  last_failure: string | null;
  /** The W3C trace context the job was enqueued in, as JSON (`TraceContext`), or `null` (migration 014). */
  trace_context: string | null;
}

/** The `redrives` projection: the audit trail of SPEC J6, one row per `job.redriven` event. */
export interface RedrivesTable {
  /** The position of the `job.redriven` event this row records. */
  position: number;
  job_id: string;
  /** The job's token at the redrive; the job keeps it, so an old attempt's finish stays stale. */
  previous_token: number;
  at_ms: number;
  /** The operator's ticket id (SPEC J6): never free text. */
  note: string;
}

/**
 * The `job_archive` table (retention, migration 009): one row per pruned job, whose stream and
 * `jobs` row are gone, so that an old id stays recognisable and is never enqueued again.
 */
export interface JobArchiveTable {
  id: string;
  state: string;
  token: number;
  reason: string | null;
  enqueued_at: number;
  finished_at: number;
  pruned_at: number;
}

/** The `queues` projection: one row per queue that ever had a limit, the fold of its `queue` stream. */
export interface QueuesTable {
  name: string;
  /** The most jobs of the queue leased at once; null: no limit. */
  max_leased: number | null;
  updated_at: number;
  version: number;
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

/** One durable subscriber's checkpoint: the position of the last event its handler accepted; it never goes back. */
export interface SubscriptionsTable {
  name: string;
  position: number;
  updated_at: number;
}

/** The generic projection of a declared stream (migration 013): one row per stream, the fold of its events. */
export interface StreamStatesTable {
  stream_type: string;
  stream_id: string;
  /** The machine state the stream is in. */
  state: string;
  version: number;
  /** The holder token, for a stream type that declares fencing; else null. */
  token: number | null;
  /** The folded state as JSON. */
  value: string;
  updated_at: number;
}

/**
 * The tables every store has, as Kysely sees them: the event log, the job projections, the
 * counters and the receipts. The relay's `ledger` and the file queue's tables (`processed`,
 * …) are not listed here; their SQL reaches them through typed views of the same database.
 */
export interface VerqDatabase {
  events: EventsTable;
  jobs: JobsTable;
  redrives: RedrivesTable;
  job_archive: JobArchiveTable;
  queues: QueuesTable;
  counters: CountersTable;
  receipts: ReceiptsTable;
  subscriptions: SubscriptionsTable;
  stream_states: StreamStatesTable;
}
