import { DEAD_REASONS, JOB_STATES, type Job, type JobState } from "@verq/core";
import type { JobsPage } from "@verq/store";
import { dataTable, num } from "./data-table.ts";
import { kindName } from "./failure-html.ts";
import { html, type Html } from "./html.ts";
import type { ListQuery } from "./list-query.ts";
import { page, time, type DashboardPaths } from "./page-shell.ts";

/** The query-string fields of `/jobs`: its filters and the cursor of the page. */
export const JOBS_QUERY_KEYS = ["state", "queue", "kind", "reason", "id", "after"] as const;

/** The filters of `/jobs`, as the query string gave them. */
export type JobsQuery = ListQuery<(typeof JOBS_QUERY_KEYS)[number]>;

/** How many jobs a page of `/jobs` shows. */
export const JOBS_PAGE_SIZE = 50;

/** What each walk lists first: the order of the index it reads (see `JobQueue.page`). */
const ORDER_NOTE: Readonly<Record<JobState | "all", string>> = {
  all: "in id order (no state given: the primary key is the one index every job is in)",
  pending: "in claim order: per queue, highest priority first, then the earliest due, then enqueue order",
  leased: "per queue, the lease that ends first first",
  done: "latest finished first",
  dead: "latest death first",
};

const filterLink = (
  paths: DashboardPaths,
  query: JobsQuery,
  change: Partial<JobsQuery>,
  label: string,
  current: boolean,
): Html =>
  current
    ? html`<strong class="badge" aria-current="true">${label}</strong>`
    : html`<a class="badge" href="${paths.list("jobs", { ...query, after: undefined, ...change })}">${label}</a>`;

function filters(paths: DashboardPaths, query: JobsQuery): Html {
  const state = query.state ?? (query.reason === undefined ? undefined : "dead");
  const states = [undefined, ...JOB_STATES].map((s) =>
    filterLink(paths, query, { state: s, reason: s === "dead" ? query.reason : undefined }, s ?? "all", s === state),
  );
  const reasons =
    state === "dead"
      ? [undefined, ...DEAD_REASONS].map((r) =>
          filterLink(paths, query, { state: "dead", reason: r }, r ?? "any reason", r === query.reason),
        )
      : [];
  const others = (["queue", "kind", "id"] as const)
    .filter((key) => query[key] !== undefined)
    .map(
      (key) =>
        html`<span class="badge" data-filter="${key}"
          >${key === "id" ? "id starts with" : key} <code>${query[key]}</code>
          <a href="${paths.list("jobs", { ...query, after: undefined, [key]: undefined })}" title="remove this filter">×</a></span
        >`,
    );
  return html`<div class="filters" id="job-filters">
    <span class="muted">state</span> ${states} ${reasons.length > 0 && html`<span class="muted">reason</span> ${reasons}`}
    ${others}
  </div>`;
}

function failureCell(job: Job): Html {
  const failure = job.lastFailure;
  if (failure === null) return html`—`;
  return html`<code>${failure.errorClass}</code>${failure.code !== null && html` <code>${failure.code}</code>`}`;
}

function table(paths: DashboardPaths, query: JobsQuery, jobs: readonly Job[]): Html {
  const rows = jobs.map(
    (job) =>
      html`<tr data-job="${job.id}">
        <td>
          <a href="${paths.job(job.id)}"><code>${job.id}</code></a>
        </td>
        <td data-col="state">
          <a
            class="badge ${job.state}"
            href="${paths.list("jobs", { ...query, after: undefined, state: job.state, reason: undefined })}"
            >${job.state}</a
          >${job.reason !== null && html` <span class="badge dead">${job.reason}</span>`}
        </td>
        <td data-col="queue"><code>${job.queue}</code></td>
        <td data-col="kind"><code>${kindName(job.kind)}</code></td>
        <td class="num" data-col="attempts">${job.attempts} / ${job.maxAttempts}</td>
        <td data-col="failure">${failureCell(job)}</td>
        <td data-col="updated">${time(job.updatedAt)}</td>
      </tr>`,
  );
  const headings = ["id", "state", "queue", "kind", num("attempts"), "last failure", "updated"];
  return dataTable("jobs-table", headings, rows, { id: "jobs-empty", text: "No job matches." });
}

/**
 * `/jobs`: a page of the jobs matching the filters (state, dead reason, queue, kind, id prefix),
 * each id linking to its timeline, with links that narrow or widen the filters and, while more
 * jobs follow, one to the next page (its cursor in the query string, the filters kept).
 */
export function jobsListPage(
  paths: DashboardPaths,
  at: number,
  query: JobsQuery,
  result: JobsPage,
  acts: Html | null = null,
): string {
  const state = (query.state ?? (query.reason === undefined ? "all" : "dead")) as JobState | "all";
  return page(
    paths,
    "Jobs",
    at,
    html`<section id="jobs-list" data-state="${state}">
      <h2>Jobs</h2>
      ${filters(paths, query)} ${acts}
      <p class="note" id="jobs-order">${result.jobs.length} shown, ${ORDER_NOTE[state] ?? ""}.</p>
      ${table(paths, query, result.jobs)}
      <div class="pager">
        ${query.after !== undefined && html`<a id="first-page" href="${paths.list("jobs", { ...query, after: undefined })}">First page</a>`}
        ${result.next !== null && html`<a id="next-page" rel="next" href="${paths.list("jobs", { ...query, after: result.next })}">Next page</a>`}
      </div>
    </section>`,
  );
}
