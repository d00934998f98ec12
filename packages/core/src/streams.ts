import { GUID_STREAM, LEDGER_AUDIT_STREAM } from "./guid.events.ts";
import { JOB_RETENTION_STREAM, JOB_STREAM } from "./job.events.ts";
import { LOCK_STREAM } from "./lock.events.ts";
import { MESSAGE_STREAM } from "./message.events.ts";
import { QUEUE_STREAM } from "./queue.events.ts";
import { SCHEDULE_STREAM } from "./schedule.events.ts";

/**
 * Every stream type of verq's event log, the `stream_type` of each event the store writes: jobs
 * and their retention audit, GUIDs and the ledger's audit, file-queue messages, schedules,
 * queue limits and operator locks. The one list every other list is derived from (`verq events
 * --type`, the checks, the tests that prove each stream is known everywhere): a stream type
 * added to the store and not here fails those tests.
 */
export const STREAM_TYPES = [
  JOB_STREAM,
  JOB_RETENTION_STREAM,
  GUID_STREAM,
  LEDGER_AUDIT_STREAM,
  MESSAGE_STREAM,
  SCHEDULE_STREAM,
  QUEUE_STREAM,
  LOCK_STREAM,
] as const;

/** One of {@link STREAM_TYPES}. */
export type StreamType = (typeof STREAM_TYPES)[number];
