import type { Job, RecordedFailure } from "@verq/core";
import { JOB_STATS_NONE, type StoredEvent } from "@verq/store";
import { describeEvent, iso } from "./common.ts";

/*
 * How `verq jobs …` writes a job, its failures and its timeline as text and as JSON rows:
 * identifiers, states and times only, never a payload. A failure is shown by its fields one by
 * one (category, class, code, status), never as whatever object an event holds.
 */

/** A job's kind as the commands show it: its name, or `(none)` (the key `jobs stats` counts kindless jobs under). */
export const kindText = (kind: string | null): string => kind ?? JOB_STATS_NONE;

/** `id state(reason) token=N attempts=A/M`: the first line of a job. */
export const describeJob = (job: Job): string =>
  `${job.id} ${job.state}${job.reason === null ? "" : `(${job.reason})`} token=${job.token} attempts=${job.attempts}/${job.maxAttempts}`;

/** A field of an event as text: a string or a number as it is, anything else not at all (`undefined`). */
const scalar = (value: unknown): string | undefined =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined;

/** The fields a failure shows, as `key=value` pairs, from whatever an event's `failure` holds (unknown fields are left out). */
function failurePairs(failure: unknown, withNulls: boolean): string[] {
  if (typeof failure !== "object" || failure === null) return [];
  const f = failure as Record<string, unknown>;
  const pairs: [string, unknown][] = [
    ["category", f["category"]],
    ["class", f["errorClass"]],
    ["code", f["code"]],
    ["status", f["status"]],
  ];
  return pairs.flatMap(([key, value]) => {
    const text = value === null && withNulls ? "-" : scalar(value);
    return text === undefined ? [] : [`${key}=${text}`];
  });
}

/** A job's last failure on one line: every field, `-` for a code or status it has none of. */
export const lastFailureText = (failure: RecordedFailure | null): string =>
  failure === null
    ? "none"
    : [...failurePairs(failure, true), `attempt=${failure.attempt}`, `token=${failure.token}`, `at=${iso(failure.at)}`].join(" ");

/**
 * One line of a job's timeline: as `describeEvent`, without the payload; an event that carries a
 * failure (`job.failed`, `job.retryScheduled`, `job.died`) shows its other fields, then the
 * failure's, then `attempt=` and `token=`.
 */
export function describeJobEvent(event: StoredEvent): string {
  const data = (event.data ?? {}) as Record<string, unknown>;
  if (data["failure"] === undefined) return describeEvent(event, ["payload"]);
  const line = describeEvent(event, ["payload", "failure", "attempt", "token"]);
  const tail = [
    ...failurePairs(data["failure"], false),
    ...[
      ["attempt", scalar(data["attempt"])],
      ["token", scalar(data["token"])],
    ].flatMap(([key, text]) => (text === undefined ? [] : [`${key}=${text}`])),
  ];
  return `${line} ${tail.join(" ")}`;
}

/** The lines of `verq jobs show`: the job, its kind and queue, its last failure, then its timeline. */
export const showText = (job: Job, events: readonly StoredEvent[]): string =>
  [
    describeJob(job),
    `  kind=${kindText(job.kind)} queue=${job.queue} priority=${job.priority}`,
    `  last failure: ${lastFailureText(job.lastFailure)}`,
    ...events.map(describeJobEvent),
  ].join("\n");

/** A job as a row of `jobs list --json` and `jobs dead --json`: everything but the payload. */
export const jobRow = (j: Job) => ({
  id: j.id,
  state: j.state,
  reason: j.reason,
  queue: j.queue,
  kind: j.kind,
  priority: j.priority,
  token: j.token,
  attempts: j.attempts,
  maxAttempts: j.maxAttempts,
  owner: j.owner,
  leaseUntil: j.leaseUntil,
  availableAt: j.availableAt,
  deadSince: j.deadSince,
  lastFailure: j.lastFailure,
});

/** The kind and last failure class columns of a listing line. */
export const kindAndFailure = (j: Job): string =>
  `kind=${kindText(j.kind)} failure=${j.lastFailure === null ? "none" : j.lastFailure.errorClass}`;
