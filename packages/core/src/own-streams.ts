import { GUID_STREAM } from "./guid.events.ts";
import { guidStreamDefinition } from "./guid.decide.ts";
import { JOB_STREAM } from "./job.events.ts";
import { jobStreamDefinition } from "./job.decide.ts";
import { LOCK_STREAM } from "./lock.events.ts";
import { lockStreamDefinition } from "./lock.decide.ts";
import { MESSAGE_STREAM } from "./message.events.ts";
import { messageStreamDefinition } from "./message.decide.ts";
import { QUEUE_STREAM } from "./queue.events.ts";
import { queueStreamDefinition } from "./queue.decide.ts";
import { SCHEDULE_STREAM } from "./schedule.events.ts";
import { scheduleStreamDefinition } from "./schedule.decide.ts";
import type { EventReader } from "./stream-types.ts";
import type { STREAM_MACHINES, StreamType } from "./streams.ts";

/** A stream type that a machine of verq's own decides (not an audit trail). */
export type DecidedStreamType = {
  [T in StreamType]: (typeof STREAM_MACHINES)[T] extends { readonly machine: string } ? T : never;
}[StreamType];

/**
 * verq's own stream definitions, by the stream type each decides: declared through
 * `defineVerqStream`, the path a service's `defineStream` takes. Every reader of the log (the
 * rebuilds, `checkStore`, subscriptions, `verq events`) brings their events to the current shape
 * through these, as it does a service's: a change to the shape of one of verq's events is a new
 * version and an upcaster in its definition, and the log is never rewritten.
 */
export const VERQ_STREAM_DEFINITIONS = {
  [JOB_STREAM]: jobStreamDefinition,
  [GUID_STREAM]: guidStreamDefinition,
  [MESSAGE_STREAM]: messageStreamDefinition,
  [SCHEDULE_STREAM]: scheduleStreamDefinition,
  [QUEUE_STREAM]: queueStreamDefinition,
  [LOCK_STREAM]: lockStreamDefinition,
} as const satisfies Readonly<Record<DecidedStreamType, EventReader>>;
