import type { JobStats } from "@verq/store";
import { html, type Html } from "./html.ts";

/** Counts by name as badges (`TypeError 2`), or a muted "none". */
export function countBadges(counts: Readonly<Record<string, number>>): Html {
  const entries = Object.entries(counts);
  if (entries.length === 0) return html`<span class="muted">none</span>`;
  return html`${entries.map(([name, n]) => html`<span class="badge" data-name="${name}">${name} ${n}</span> `)}`;
}

/**
 * The overview's kinds: one row per kind with jobs (kindless jobs under `(none)`), its jobs by
 * state and its dead jobs by the class of their last failure, from `JobStats.kinds`.
 */
export function kindsSection(jobs: JobStats): Html {
  const rows = Object.entries(jobs.kinds).map(
    ([kind, k]) =>
      html`<tr data-kind="${kind}">
        <td><code>${kind}</code></td>
        <td class="num" data-state="pending">${k.byState.pending}</td>
        <td class="num" data-state="leased">${k.byState.leased}</td>
        <td class="num" data-state="done">${k.byState.done}</td>
        <td class="num" data-state="dead">${k.byState.dead}</td>
        <td>${countBadges(k.deadByFailureClass)}</td>
      </tr>`,
  );
  return html`<section id="kinds">
    <h2>Kinds</h2>
    ${
      rows.length === 0
        ? html`<p id="kinds-empty" class="muted">No job.</p>`
        : html`<table id="kinds-table">
            <thead>
              <tr>
                <th>kind</th>
                <th class="num">pending</th>
                <th class="num">leased</th>
                <th class="num">done</th>
                <th class="num">dead</th>
                <th>dead by last failure class</th>
              </tr>
            </thead>
            <tbody>
              ${rows}
            </tbody>
          </table>`
    }
  </section>`;
}
