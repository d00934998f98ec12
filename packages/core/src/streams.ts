import { GUID_STREAM, LEDGER_AUDIT_STREAM } from "./guid.events.ts";
import { JOB_RETENTION_STREAM, JOB_STREAM } from "./job.events.ts";
import { LOCK_STREAM } from "./lock.events.ts";
import { MESSAGE_STREAM } from "./message.events.ts";
import { QUEUE_STREAM } from "./queue.events.ts";
import { SCHEDULE_STREAM } from "./schedule.events.ts";

/**
 * What decides the events of one stream type: a machine of its own (`machine`, its name in
 * `VERQ_MACHINES`), or none because the stream is an audit trail that another machine's
 * accepted command appends to in the same transaction (`auditOf`, that machine's name).
 */
export type StreamDecider = { readonly machine: string } | { readonly auditOf: string };

/**
 * For each stream type, the machine that decides it: `job`, `guid`, `message`, `schedule`,
 * `queue` and `lock` (the `operator` streams) decide their own; `job-retention` is the audit of
 * the job machine's prunes and `ledger-audit` that of the GUID machine's purges. Its keys are
 * {@link STREAM_TYPES}: a stream type is added here and nowhere else by hand (a `*_STREAM`
 * constant without an entry fails the tests that compare the two); the machine names here are
 * exactly those of `VERQ_MACHINES`, which `verq viz` and the dashboard draw.
 */
export const STREAM_MACHINES = {
  [JOB_STREAM]: { machine: "job" },
  [JOB_RETENTION_STREAM]: { auditOf: "job" },
  [GUID_STREAM]: { machine: "guid" },
  [LEDGER_AUDIT_STREAM]: { auditOf: "guid" },
  [MESSAGE_STREAM]: { machine: "message" },
  [SCHEDULE_STREAM]: { machine: "schedule" },
  [QUEUE_STREAM]: { machine: "queue" },
  [LOCK_STREAM]: { machine: "lock" },
} as const satisfies Readonly<Record<string, StreamDecider>>;

/**
 * Every stream type of verq's event log, the `stream_type` of each event the store writes: jobs
 * and their retention audit, GUIDs and the ledger's audit, file-queue messages, schedules,
 * queue limits and operator locks, in the order of {@link STREAM_MACHINES}, whose keys they are.
 * The one list every other list is derived from (`verq events --type`, `verq viz`, the checks,
 * the tests that prove each stream is known everywhere): a stream type the store writes and that
 * is not here fails those tests.
 */
export const STREAM_TYPES = Object.keys(STREAM_MACHINES) as readonly StreamType[];

/** One of {@link STREAM_TYPES}: a key of {@link STREAM_MACHINES}. */
export type StreamType = keyof typeof STREAM_MACHINES;

type DecidingEntry = Extract<(typeof STREAM_MACHINES)[StreamType], { readonly machine: string }>;

/** The name of a machine that decides a stream type of its own: a `machine` of {@link STREAM_MACHINES}. */
export type VerqMachineName = DecidingEntry["machine"];

/**
 * The names of the machines that decide a stream, once each, in {@link STREAM_TYPES} order:
 * what `verq viz` exports and the docs and the dashboard draw.
 */
export const VERQ_MACHINE_NAMES: readonly VerqMachineName[] = [
  ...new Set(STREAM_TYPES.map((type) => STREAM_MACHINES[type]).flatMap((entry) => ("machine" in entry ? [entry.machine] : []))),
];
