import { CronExpressionParser } from "cron-parser";
import { VerqError } from "./errors.ts";
import { MAX_IDENTIFIER_LENGTH } from "./job.input.ts";
import { isValidQueueName } from "./queue.input.ts";
import type { Schedule } from "./schedule.types.ts";

/** A schedule name: 1 to 100 of `A-Z a-z 0-9 . _ -`, starting with a letter or digit. */
export const SCHEDULE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
/** The longest cron expression accepted, in characters. */
export const MAX_CRON_LENGTH = 200;

// 5 fields (minute precision) or 6 (seconds first), or an alias such as @hourly.
const CRON_SHAPE = /^(?:@[a-z]+|\S+(?:\s+\S+){4,5})$/;

/** Whether `name` may name a schedule (see {@link SCHEDULE_NAME_PATTERN}). */
export function isValidScheduleName(name: unknown): name is string {
  return typeof name === "string" && SCHEDULE_NAME_PATTERN.test(name);
}

/** Whether `timezone` is an IANA timezone this runtime knows (`UTC`, `Europe/Berlin`, …). */
export function isValidTimezone(timezone: unknown): timezone is string {
  if (typeof timezone !== "string" || timezone.length === 0 || timezone.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `cron` is a cron expression with at least one slot: 5 or 6 fields or an `@alias`, every
 * field in range, and a date that can occur (not `0 0 30 2 *`). Parsed by `cron-parser`.
 */
export function isValidCron(cron: unknown): cron is string {
  if (typeof cron !== "string" || cron.length > MAX_CRON_LENGTH || !CRON_SHAPE.test(cron.trim())) return false;
  try {
    CronExpressionParser.parse(cron, { currentDate: new Date(0), tz: "UTC" }).next();
    return true;
  } catch {
    return false;
  }
}

/** The parts of a schedule's definition that the schedule machine's guards refuse. */
export type ScheduleDefinitionFault = "invalid-name" | "invalid-cron" | "invalid-timezone" | "invalid-queue";

/**
 * The coded error of a refused part of a schedule's definition: what {@link checkScheduleDefinition}
 * throws and what the schedule machine's refusal of the same part maps to, so both say the same.
 * The message never quotes the value.
 */
export function scheduleDefinitionError(fault: ScheduleDefinitionFault): VerqError {
  switch (fault) {
    case "invalid-name":
      return new VerqError(
        "VERQ_INVALID_ARGUMENT",
        "a schedule name is 1 to 100 of A-Z a-z 0-9 . _ - starting with a letter or digit",
      );
    case "invalid-cron":
      return new VerqError(
        "VERQ_INVALID_CRON",
        "the cron expression must have 5 fields (or 6 with seconds first) in range, or be an @alias",
      );
    case "invalid-timezone":
      return new VerqError("VERQ_INVALID_TIMEZONE", "the timezone must be an IANA name such as UTC or Europe/Berlin");
    case "invalid-queue":
      // The queue rule of enqueue and claim: any queue jobs can be in, a schedule can name.
      return new VerqError("VERQ_INVALID_ARGUMENT", `a queue name must be 1 to ${MAX_IDENTIFIER_LENGTH} printable characters`);
  }
}

/**
 * Checks a schedule's name, cron expression, timezone and queue before anything is written (or
 * opened), with the rules of the schedule machine's guards and the errors of
 * {@link scheduleDefinitionError}: for a caller that must refuse before it has a store to decide on.
 */
export function checkScheduleDefinition(name: unknown, cron: unknown, timezone: unknown, queue: unknown): void {
  if (!isValidScheduleName(name)) throw scheduleDefinitionError("invalid-name");
  if (!isValidCron(cron)) throw scheduleDefinitionError("invalid-cron");
  if (!isValidTimezone(timezone)) throw scheduleDefinitionError("invalid-timezone");
  if (!isValidQueueName(queue)) throw scheduleDefinitionError("invalid-queue");
}

/** The slot a scheduler should enqueue now, and the first earlier due slot the policy skipped, if any. */
export interface DueSlot {
  /** The latest slot at or before `now` (ms since the epoch). */
  readonly slot: number;
  /** The earliest due slot skipped in favour of `slot` (null when `slot` is the only one due). */
  readonly firstMissed: number | null;
}

/**
 * The missed-slot policy, as a pure function: of the slots of `cron` in `timezone` from `from` to
 * `now` (both included), only the latest is due; the earlier ones (missed while no scheduler ran)
 * are skipped and reported by the first of them. Null when no slot falls in the range. Around a
 * DST change the slots are those `cron-parser` gives: a wall time that does not exist that day
 * fires at the next one, and a wall time that occurs twice fires once.
 */
export function dueSlot(cron: string, timezone: string, from: number, now: number): DueSlot | null {
  if (now < from) return null;
  try {
    const slot = latestSlot(cron, timezone, now);
    if (slot < from) return null;
    const first = nextSlot(cron, timezone, from - 1);
    return { slot, firstMissed: first < slot ? first : null };
  } catch {
    return null;
  }
}

/**
 * The due slot of `schedule` at `now` (see {@link dueSlot}): its slots count from its `since`,
 * strictly after its last slot enqueued, so a slot is offered once and the fire the machine
 * then decides is one it accepts unless another scheduler recorded it first. Null when none is due.
 */
export function scheduleDueSlot(schedule: Schedule, now: number): DueSlot | null {
  const from = schedule.lastSlot === null ? schedule.since : Math.max(schedule.since, schedule.lastSlot + 1);
  return dueSlot(schedule.cron, schedule.timezone, from, now);
}

/** Whether `time` (ms since the epoch) is exactly a slot of `cron` in `timezone`: the latest slot at `time`. */
export function isCronSlot(cron: string, timezone: string, time: number): boolean {
  try {
    return latestSlot(cron, timezone, time) === time;
  } catch {
    return false;
  }
}

/**
 * The latest slot at or before `time`. Slots are what `cron-parser`'s `next` steps to (its `prev`
 * disagrees around DST changes), so this steps forward from two `prev` slots back.
 */
function latestSlot(cron: string, timezone: string, time: number): number {
  const back = CronExpressionParser.parse(cron, { currentDate: new Date(time + 1), tz: timezone });
  back.prev();
  let cursor = back.prev().getTime();
  for (let step = 0; step < 10; step++) {
    const next = nextSlot(cron, timezone, cursor);
    if (next > time) break;
    cursor = next;
  }
  return cursor;
}

/** The first slot strictly after `after`. */
function nextSlot(cron: string, timezone: string, after: number): number {
  return CronExpressionParser.parse(cron, { currentDate: new Date(after), tz: timezone })
    .next()
    .getTime();
}

/**
 * The id of the job that slot `slot` of schedule `name` enqueues: `schedule:<name>:<slot as ISO
 * time>`. The same on every host, so enqueue's idempotency lets one job through per slot.
 */
export function scheduleJobId(name: string, slot: number): string {
  return `schedule:${name}:${new Date(slot).toISOString()}`;
}
