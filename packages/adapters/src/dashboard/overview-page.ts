import type { Overview } from "./dashboard-data.ts";
import { ledgerTable } from "./data-table.ts";
import { html, type Html } from "./html.ts";
import type { DrawnMachine } from "./drawn-machines.ts";
import { kindName } from "./failure-html.ts";
import { countBadges, kindsSection } from "./kinds-section.ts";
import { drawMachine, stayingTransitions, type MachineLayout } from "./machine-diagram.ts";
import { page, time, type DashboardPaths } from "./page-shell.ts";
import { streamsSection } from "./streams-section.ts";

/** The machines the overview draws (`DRAWN_MACHINES`), laid out once, under the names of `VERQ_MACHINES`. */
export type MachineLayouts = Readonly<Record<DrawnMachine, MachineLayout>>;

const percent = (ratio: number): string => `${Math.round(ratio * 1000) / 10}%`;

function machineFigure(layout: MachineLayout, counts: Readonly<Record<string, number>>, caption: Html): Html {
  return html`<figure class="machine" data-machine="${layout.name}">
    <figcaption>
      ${layout.name} <span class="muted">(machine <code>${layout.graph.id}</code>)</span> ${caption}
    </figcaption>
    ${drawMachine(layout, counts)} ${stayingTransitions(layout)}
  </figure>`;
}

function machinesSection(layouts: MachineLayouts, o: Overview): Html {
  return html`<section id="machines">
    <h2>Machines</h2>
    <p class="note">
      Each diagram is laid out from the machine's own definition; a state shows how many streams are in it now. An arrow is every
      transition between two states, labelled <code>event [guard]</code>. Refusals (a command answered and nothing recorded) are
      not drawn. The dashed state is a stream before its first event: no stream is stored in it.
    </p>
    <div class="machines">
      ${machineFigure(layouts.job, o.jobs.byState, html`<span class="muted">${o.jobs.total} jobs</span>`)}
      ${machineFigure(layouts.guid, o.ledger.byState, html`<span class="muted">${o.ledger.total} ledger entries</span>`)}
      ${machineFigure(layouts.message, o.messages.byState, html`<span class="muted">${o.messages.processed} processed, ${o.messages.duplicates} duplicates</span>`)}
    </div>
  </section>`;
}

function deadTable(o: Overview, paths: DashboardPaths): Html {
  if (o.dead.length === 0) return html`<p id="dead-letters-empty" class="muted">No dead job.</p>`;
  const rows = o.dead.map(
    (job) =>
      html`<tr data-job="${job.id}">
        <td>
          <a href="${paths.job(job.id)}"><code>${job.id}</code></a>
        </td>
        <td data-col="kind"><code>${kindName(job.kind)}</code></td>
        <td><span class="badge dead">${job.reason}</span></td>
        <td data-col="failure">${job.lastFailure === null ? "—" : html`<code>${job.lastFailure.errorClass}</code>`}</td>
        <td>${time(job.deadSince)}</td>
        <td class="num">${job.attempts} / ${job.maxAttempts}</td>
        <td class="num">${job.token}</td>
      </tr>`,
  );
  return html`<table id="dead-letters">
      <thead>
        <tr>
          <th>id</th>
          <th>kind</th>
          <th>reason</th>
          <th>last failure</th>
          <th>dead since</th>
          <th class="num">attempts</th>
          <th class="num">token</th>
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
    ${
      o.dead.length >= o.limit &&
      html`<p class="note">
        The ${o.limit} longest dead are shown; <a href="${paths.list("jobs", { state: "dead" })}">every dead job</a>, page by
        page.
      </p>`
    }`;
}

function jobsSection(o: Overview, paths: DashboardPaths): Html {
  const { dead, lastRedrive } = o.jobs;
  const reasons = Object.entries(dead.byReason).map(
    ([reason, r]) =>
      html`<a class="badge" data-reason="${reason}" href="${paths.list("jobs", { state: "dead", reason })}"
        >${reason} ${r.count} (${percent(r.ratio)})</a
      > `,
  );
  const states = Object.entries(o.jobs.byState).map(
    ([state, count]) =>
      html`<a class="badge ${state}" data-state="${state}" href="${paths.list("jobs", { state })}">${state} ${count}</a> `,
  );
  return html`<section id="jobs">
    <h2>Jobs and dead letters</h2>
    <div class="grid2">
      <dl class="facts">
        <dt>jobs by state</dt>
        <dd id="jobs-by-state">${states} <a href="${paths.list("jobs")}">all ${o.jobs.total}</a></dd>
        <dt>dead</dt>
        <dd id="dead-by-reason">${dead.count} ${reasons}</dd>
        <dt>dead by last failure class</dt>
        <dd id="dead-by-class">${countBadges(dead.byFailureClass)}</dd>
        <dt>oldest dead job</dt>
        <dd id="oldest-dead">
          ${
            dead.oldest === null
              ? "none"
              : html`<a href="${paths.job(dead.oldest.id)}"><code>${dead.oldest.id}</code></a> dead since
                  ${time(dead.oldest.deadSince)}`
          }
        </dd>
        <dt>lease expiries</dt>
        <dd>${o.jobs.leaseExpiries}</dd>
        <dt>stale finishes refused</dt>
        <dd>${o.jobs.staleFinishesRefused}</dd>
      </dl>
      <dl class="facts" id="last-redrive">
        <dt>last redrive</dt>
        <dd>
          ${
            lastRedrive === null
              ? "none yet"
              : html`<a href="${paths.job(lastRedrive.jobId)}"><code>${lastRedrive.jobId}</code></a> at ${time(lastRedrive.at)}`
          }
        </dd>
        ${
          lastRedrive !== null &&
          html`<dt>note</dt>
            <dd><code>${lastRedrive.note}</code></dd>
            <dt>previous token</dt>
            <dd>${lastRedrive.previousToken}</dd>
            <dt>job now</dt>
            <dd>${lastRedrive.resultState ?? "gone"}</dd>`
        }
      </dl>
    </div>
    <h3>Dead letters</h3>
    ${deadTable(o, paths)}
  </section>`;
}

function ledgerSection(o: Overview, paths: DashboardPaths): Html {
  const { oldestUnknown, oldestFailed } = o.ledger;
  return html`<section id="ledger">
    <h2>GUID ledger: UNKNOWN and FAILED</h2>
    <dl class="facts">
      <dt>oldest UNKNOWN</dt>
      <dd>
        ${oldestUnknown === null ? "none" : html`<a href="${paths.ledger(oldestUnknown.guid)}"><code>${oldestUnknown.guid}</code></a> since ${time(oldestUnknown.since)}`}
      </dd>
      <dt>oldest FAILED</dt>
      <dd>
        ${oldestFailed === null ? "none" : html`<a href="${paths.ledger(oldestFailed.guid)}"><code>${oldestFailed.guid}</code></a> since ${time(oldestFailed.since)}, ${oldestFailed.attempts} attempts`}
      </dd>
      <dt>last purge</dt>
      <dd>${o.ledger.lastPurge === null ? "none" : html`${time(o.ledger.lastPurge.at)}, ${o.ledger.lastPurge.count} entries`}</dd>
    </dl>
    ${ledgerTable(paths, "ledger-open", o.open, { id: "ledger-open-empty", text: "No UNKNOWN or FAILED entry." })}
    ${o.open.length >= o.limit && html`<p class="note">The ${o.limit} oldest are shown.</p>`}
    <p><a id="ledger-all" href="${paths.list("ledger")}">Every UNKNOWN and FAILED entry, page by page</a></p>
  </section>`;
}

function filesSection(o: Overview): Html {
  const f = o.folders;
  let folders: Html;
  if (f === null) folders = html`<p class="muted">No queue folder given (<code>--files ROOT</code> counts its files).</p>`;
  else if (!f.ok)
    folders = html`<p id="folders-problem">The folders of <code>${f.root}</code> cannot be counted: ${f.problem}</p>`;
  else
    folders = html`<dl class="facts" id="folders">
      <dt>folders of</dt>
      <dd><code>${f.root}</code></dd>
      ${Object.entries(f.counts).map(
        ([folder, count]) =>
          html`<dt>${folder}/</dt>
            <dd data-folder="${folder}">${count}</dd>`,
      )}
    </dl>`;
  return html`<section id="files">
    <h2>File queue</h2>
    <dl class="facts">
      <dt>processed rows</dt>
      <dd>${o.messages.processed}</dd>
      <dt>duplicates stopped</dt>
      <dd>${o.messages.duplicates}</dd>
    </dl>
    ${folders}
  </section>`;
}

/**
 * The overview (`/`): the machines it draws (job, GUID, message) with their counts, the declared
 * stream types, the dead letters, the kinds, the open ledger entries and the file queue.
 */
export function overviewPage(paths: DashboardPaths, layouts: MachineLayouts, o: Overview): string {
  return page(
    paths,
    "Overview",
    o.at,
    html`${machinesSection(layouts, o)} ${streamsSection(o.streams, paths, o.limit)} ${jobsSection(o, paths)}
    ${kindsSection(o.jobs)} ${ledgerSection(o, paths)} ${filesSection(o)}`,
  );
}
