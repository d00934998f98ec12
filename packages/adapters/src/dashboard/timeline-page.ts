import type { Job, LedgerEntry } from "@verq/core";
import type { StoredEvent } from "@verq/store";
import { dataTable, num } from "./data-table.ts";
import { failureDetails, kindName, lastFailureFacts } from "./failure-html.ts";
import { escapeHtml, html, rawHtml, type Html, type HtmlValue } from "./html.ts";
import { page, time, type DashboardPaths } from "./page-shell.ts";

/** Fields of an event's data that hold a time in ms: shown as ISO times. */
const TIME_FIELDS = new Set(["leaseUntil", "availableAt", "deadline"]);

/** The two columns of a timeline that name who acted: `token` and `owner` for jobs, `attempt` and `by` for the ledger. */
interface Columns {
  readonly first: string;
  readonly second: string;
  /** Data fields that hold payloads: left out unless the payload was asked for. */
  readonly payloadFields: readonly string[];
}

const JOB_COLUMNS: Columns = { first: "token", second: "owner", payloadFields: ["payload"] };
const GUID_COLUMNS: Columns = { first: "attempt", second: "by", payloadFields: ["request", "response"] };

/** A value of an event's data as text: a dash for none, JSON for anything that is not a string. */
const shown = (value: unknown): string =>
  value === null || value === undefined ? "—" : typeof value === "string" ? value : JSON.stringify(value);

function details(data: Record<string, unknown>, columns: Columns, withPayload: boolean): Html {
  const skipped = new Set(["at", columns.first, columns.second, ...(withPayload ? [] : columns.payloadFields)]);
  const items: HtmlValue[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (skipped.has(key)) continue;
    // A job's failure (job.failed, job.retryScheduled, job.died): its fields one by one.
    if (key === "failure") {
      items.push(failureDetails(value));
      continue;
    }
    const text = TIME_FIELDS.has(key) && typeof value === "number" ? time(value) : shown(value);
    items.push(html`<span class="detail" data-key="${key}"><span class="muted">${key}=</span><code>${text}</code></span> `);
  }
  return html`${items}`;
}

/** A timeline row's attributes: the event's version and type, and a mark on the event an operator's act just wrote. */
const rowAttributes = (event: StoredEvent, marked: number | null): Html => {
  const mark = event.version === marked ? ' data-acted="true" id="acted"' : "";
  return rawHtml(`data-version="${event.version}" data-type="${escapeHtml(event.type)}"${mark}`);
};

function timeline(events: readonly StoredEvent[], columns: Columns, withPayload: boolean, marked: number | null = null): Html {
  const rows = events.map((event) => {
    const data = (event.data ?? {}) as Record<string, unknown>;
    return html`<tr ${rowAttributes(event, marked)}>
      <td class="num">${event.version}</td>
      <td class="num">${event.position}</td>
      <td>${time(event.at)}</td>
      <td><code>${event.type}</code></td>
      <td class="num" data-col="${columns.first}">${shown(data[columns.first])}</td>
      <td data-col="${columns.second}"><code>${shown(data[columns.second])}</code></td>
      <td>${details(data, columns, withPayload)}</td>
    </tr>`;
  });
  const headings = [num("v"), num("position"), "time", "event", num(columns.first), columns.second, "details"];
  return dataTable("timeline", headings, rows);
}

/** The link that asks for one entry's payload, or the way back from it. */
const payloadToggle = (withPayload: boolean, what: string): Html =>
  withPayload
    ? html`<p><a href="?">Hide the ${what}</a></p>`
    : html`<p id="payload-hidden" class="muted">The ${what} is not shown. <a href="?payload=1">Show this entry's ${what}</a></p>`;

/**
 * What a job's page shows an operator who may act: the forms of the acts the job's state allows,
 * and the type of the event an act just wrote, which the timeline marks when it is the last.
 */
export interface JobPageActs {
  readonly forms: Html | null;
  readonly actedType: string | null;
}

const NO_ACTS: JobPageActs = { forms: null, actedType: null };

/**
 * `/jobs/ID`: the job as projected (with its kind and its last failure) and its timeline, every
 * event in order with its time, token and owner, and the failure of each event that carries one.
 */
export function jobPage(
  paths: DashboardPaths,
  at: number,
  job: Job,
  events: readonly StoredEvent[],
  withPayload: boolean,
  acting: JobPageActs = NO_ACTS,
): string {
  const last = events.at(-1);
  const marked = acting.actedType !== null && last?.type === acting.actedType ? last.version : null;
  return page(
    paths,
    `Job ${job.id}`,
    at,
    html`<section id="job" data-job="${job.id}">
      <p class="back">
        <a id="back-to-jobs" href="${paths.list("jobs")}">All jobs</a> ·
        <a id="jobs-in-state" href="${paths.list("jobs", { state: job.state })}">${job.state} jobs</a> ·
        <a id="jobs-in-queue" href="${paths.list("jobs", { queue: job.queue })}">jobs of queue <code>${job.queue}</code></a>
      </p>
      <h2>Job <code>${job.id}</code> <span class="badge ${job.state}">${job.state}</span></h2>
      <dl class="facts">
        <dt>kind</dt>
        <dd id="job-kind"><code>${kindName(job.kind)}</code></dd>
        <dt>queue</dt>
        <dd><code>${job.queue}</code></dd>
        <dt>token</dt>
        <dd id="job-token">${job.token}</dd>
        <dt>attempts</dt>
        <dd>${job.attempts} of ${job.maxAttempts}</dd>
        <dt>owner</dt>
        <dd><code>${job.owner ?? "—"}</code></dd>
        <dt>lease until</dt>
        <dd>${time(job.leaseUntil)}</dd>
        <dt>reason</dt>
        <dd>${job.reason ?? "—"}</dd>
        <dt>last failure</dt>
        ${lastFailureFacts(job.lastFailure)}
        <dt>dead since</dt>
        <dd>${time(job.deadSince)}</dd>
        <dt>available at</dt>
        <dd>${time(job.availableAt)}</dd>
        <dt>deadline</dt>
        <dd>${time(job.deadline)}</dd>
        <dt>ordering key</dt>
        <dd><code>${job.orderingKey ?? "—"}</code></dd>
        <dt>enqueued</dt>
        <dd>${time(job.enqueuedAt)}</dd>
      </dl>
      ${payloadToggle(withPayload, "payload")}
      ${
        withPayload &&
        html`<h3>Payload</h3>
          <pre class="payload" id="payload">${JSON.stringify(job.payload, null, 2)}</pre>`
      }
      ${acting.forms}
      <h3>Timeline</h3>
      ${timeline(events, JOB_COLUMNS, withPayload, marked)}
    </section>`,
  );
}

/**
 * What an entry's page shows an operator who may act: the form of the act the entry allows, and
 * the types of the events an act just may have ended with, which the timeline marks when one is the last.
 */
export interface LedgerPageActs {
  readonly forms: Html | null;
  readonly actedTypes: readonly string[];
}

const NO_LEDGER_ACTS: LedgerPageActs = { forms: null, actedTypes: [] };

/** `/ledger/GUID`: the entry as projected and its timeline; the request and the response only when asked for. */
export function ledgerPage(
  paths: DashboardPaths,
  at: number,
  entry: LedgerEntry,
  events: readonly StoredEvent[],
  withPayload: boolean,
  acting: LedgerPageActs = NO_LEDGER_ACTS,
): string {
  const last = events.at(-1);
  const marked = last !== undefined && acting.actedTypes.includes(last.type) ? last.version : null;
  return page(
    paths,
    `GUID ${entry.guid}`,
    at,
    html`<section id="entry" data-guid="${entry.guid}">
      <p class="back"><a id="back-to-ledger" href="${paths.list("ledger", { state: entry.state })}">${entry.state} entries</a></p>
      <h2>GUID <code>${entry.guid}</code> <span class="badge ${entry.state}">${entry.state}</span></h2>
      <dl class="facts">
        <dt>code</dt>
        <dd><code>${entry.code}</code></dd>
        <dt>attempts</dt>
        <dd>${entry.attempts}</dd>
        <dt>created</dt>
        <dd>${time(entry.createdAt)}</dd>
        <dt>updated</dt>
        <dd>${time(entry.updatedAt)}</dd>
        <dt>fingerprint</dt>
        <dd><code>${entry.fingerprint}</code></dd>
      </dl>
      ${payloadToggle(withPayload, "request and response")}
      ${
        withPayload &&
        html`<h3>Request</h3>
          <pre class="payload" id="request">${entry.request}</pre>
          <h3>Response</h3>
          <pre class="payload" id="response">${entry.response ?? "—"}</pre>`
      }
      ${acting.forms}
      <h3>Timeline</h3>
      ${timeline(events, GUID_COLUMNS, withPayload, marked)}
    </section>`,
  );
}
