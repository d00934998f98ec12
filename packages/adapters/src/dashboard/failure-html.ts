import type { RecordedFailure } from "@verq/core";
import { JOB_STATS_NONE } from "@verq/store";
import { html, type Html } from "./html.ts";
import { time } from "./page-shell.ts";

/** A job's kind as the pages show it: its name, or `(none)`, the key the statistics count kindless jobs under. */
export const kindName = (kind: string | null): string => kind ?? JOB_STATS_NONE;

/** The fields of a failure the pages show, in this order, with their labels: identifiers and numbers only. */
const FAILURE_FIELDS = [
  ["category", "category"],
  ["errorClass", "class"],
  ["code", "code"],
  ["status", "status"],
] as const;

/** A field of a failure as text: a string or a number as it is, a dash for none or for anything else. */
const field = (value: unknown): string => (typeof value === "string" ? value : typeof value === "number" ? String(value) : "—");

/**
 * The fields of a failure an event carries (`job.failed`, `job.retryScheduled`, `job.died`), each
 * its own `detail` span keyed by its label, read one by one from whatever the event holds: an
 * event written by another version shows what it has, never an object as a whole.
 */
export function failureDetails(failure: unknown): Html {
  if (typeof failure !== "object" || failure === null) return html``;
  const f = failure as Record<string, unknown>;
  const items = FAILURE_FIELDS.filter(([key]) => f[key] !== null && f[key] !== undefined).map(
    ([key, label]) =>
      html`<span class="detail failure" data-key="${label}"
        ><span class="muted">${label}=</span><code>${field(f[key])}</code></span
      > `,
  );
  return html`${items}`;
}

/** A job's last failure as the facts of its page: every field, a dash for a code or status it has none of. */
export function lastFailureFacts(failure: RecordedFailure | null): Html {
  if (failure === null) return html`<dd id="job-last-failure">none</dd>`;
  return html`<dd id="job-last-failure">
    ${FAILURE_FIELDS.map(
      ([key, label]) =>
        html`<span class="detail" data-key="${label}"
          ><span class="muted">${label}=</span><code>${field(failure[key])}</code></span
        > `,
    )}
    <span class="detail" data-key="attempt"><span class="muted">attempt=</span><code>${failure.attempt}</code></span>
    <span class="detail" data-key="token"><span class="muted">token=</span><code>${failure.token}</code></span>
    <span class="detail" data-key="at"><span class="muted">at </span>${time(failure.at)}</span>
  </dd>`;
}
