import { JOB_STATES } from "@verq/core";
import type { QueueStats } from "@verq/store";
import { dataTable, num } from "./data-table.ts";
import { html } from "./html.ts";
import { page, time, type DashboardPaths } from "./page-shell.ts";

/** What `/queues` shows of one queue. */
export interface QueueView {
  readonly name: string;
  readonly stats: QueueStats;
  /** When its earliest pending job is (or was) due, or null when none is pending. */
  readonly oldestDue: number | null;
}

/**
 * `/queues`: every queue with jobs or a limit, in name order: its limit (the most of its jobs
 * leased at once), its jobs by state (each count linking to those jobs) and when its earliest
 * pending job is due.
 */
export function queuesPage(paths: DashboardPaths, at: number, queues: readonly QueueView[]): string {
  const rows = queues.map(
    (q) =>
      html`<tr data-queue="${q.name}">
        <td>
          <a href="${paths.list("jobs", { queue: q.name })}"><code>${q.name}</code></a>
        </td>
        <td class="num" data-col="limit">${q.stats.maxLeased ?? "none"}</td>
        ${JOB_STATES.map(
          (state) =>
            html`<td class="num" data-state="${state}">
              <a href="${paths.list("jobs", { state, queue: q.name })}">${q.stats.byState[state]}</a>
            </td>`,
        )}
        <td data-col="oldest-due">${time(q.oldestDue)}</td>
      </tr>`,
  );
  return page(
    paths,
    "Queues",
    at,
    html`<section id="queues">
      <h2>Queues</h2>
      <p class="note">
        Every queue with jobs or a limit. A limit is the most of the queue's jobs leased at once, across every worker; the
        earliest due is that of its pending jobs (in the past: waiting for a worker).
      </p>
      ${dataTable("queues-table", ["queue", num("limit"), ...JOB_STATES.map(num), "earliest due pending"], rows, {
        id: "queues-empty",
        text: "No queue has a job or a limit.",
      })}
    </section>`,
  );
}
