/**
 * Every table verq's migrations create in a store, the same on SQLite and PostgreSQL: the event
 * log (`events`), the job projections (`jobs`, `redrives`, `job_archive`, `queues`, `counters`),
 * the file queue's (`processed`, `message_duplicates`, `messages`), the GUID ledger (`ledger`),
 * the receiver's receipts (`receipts`), the schedules (`schedules`), the subscribers'
 * checkpoints (`subscriptions`) and the projection of the streams a service declares
 * (`stream_states`). Their indexes and triggers (and on PostgreSQL the position
 * sequence and its function) come with them. A service's own tables in the same database keep
 * clear of these names: a table of one of them that is there before verq's migration creates it
 * is `VERQ_TABLE_CONFLICT` at open, and nothing is created. The migration bookkeeping is
 * {@link VERQ_MIGRATION_TABLES}.
 */
export const VERQ_TABLES = [
  "events",
  "jobs",
  "redrives",
  "counters",
  "processed",
  "message_duplicates",
  "messages",
  "ledger",
  "receipts",
  "queues",
  "schedules",
  "job_archive",
  "subscriptions",
  "stream_states",
] as const;

/** One of {@link VERQ_TABLES}. */
export type VerqTable = (typeof VERQ_TABLES)[number];

/** The two tables of verq's migration bookkeeping (which migrations ran, and their lock), beside {@link VERQ_TABLES}. */
export const VERQ_MIGRATION_TABLES = ["verq_migrations", "verq_migrations_lock"] as const;

/**
 * @internal The migration that creates each table: a table of that name that is there while its
 * migration has not run is not verq's. A new table is added to {@link VERQ_TABLES} and here with
 * the migration that creates it.
 */
export const TABLE_CREATED_BY: Readonly<Record<VerqTable, string>> = {
  events: "001-initial",
  jobs: "001-initial",
  redrives: "001-initial",
  counters: "001-initial",
  processed: "002-files",
  message_duplicates: "002-files",
  messages: "002-files",
  ledger: "003-ledger",
  receipts: "004-receiver",
  queues: "006-queues",
  schedules: "008-schedules",
  job_archive: "009-retention",
  subscriptions: "010-subscriptions",
  stream_states: "013-declared-streams",
};
