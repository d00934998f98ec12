import type { JsonValue } from "./json.ts";
import { DEFAULT_QUEUE } from "./queue.types.ts";

/**
 * Where a schedule is: `absent` (never added: the blank state, never stored), `active` (its due
 * slots enqueue jobs), or `removed` (kept with its history; adding it again makes it active).
 */
export type ScheduleState = "absent" | "active" | "removed";

/** What a schedule does: a cron expression read in a timezone, and the job each slot enqueues. */
export interface ScheduleDefinition {
  /** A cron expression of 5 fields (minute precision) or 6 (seconds first), or an `@alias` such as `@hourly`. */
  readonly cron: string;
  /** An IANA timezone (`Europe/Berlin`) in which the cron expression is read; `UTC` by default. */
  readonly timezone: string;
  /** The payload of every job the schedule enqueues. */
  readonly payload: JsonValue;
  /** The queue its jobs go to; `default` unless told. */
  readonly queue: string;
}

/**
 * One schedule as the fold of its `schedule.*` events, from {@link newSchedule}. Each due slot
 * enqueues one job whose id is derived from the name and the slot ({@link scheduleJobId}), so
 * however many schedulers run it, a slot is enqueued once. `lastSlot` only moves forward.
 */
export interface Schedule extends ScheduleDefinition {
  /** The stream id. */
  readonly name: string;
  readonly state: ScheduleState;
  /** Slots count from here (ms since the epoch): the time it was last added or updated. */
  readonly since: number;
  /** The latest slot enqueued (ms since the epoch), or null before the first. */
  readonly lastSlot: number | null;
  /** How many slots were enqueued. */
  readonly fired: number;
  /** Time of the last event applied (0 while there is none). */
  readonly updatedAt: number;
  /** Version of the stream: the number of events applied. */
  readonly version: number;
}

/** The schedule `name` before its first event: absent, version 0. Never stored. */
export function newSchedule(name: string): Schedule {
  return {
    name,
    state: "absent",
    cron: "",
    timezone: "UTC",
    payload: null,
    queue: DEFAULT_QUEUE,
    since: 0,
    lastSlot: null,
    fired: 0,
    updatedAt: 0,
    version: 0,
  };
}
