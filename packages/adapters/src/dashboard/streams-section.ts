import type { DeclaredTypeOverview } from "./declared-data.ts";
import { html, type Html } from "./html.ts";
import { drawMachine, stayingTransitions } from "./machine-diagram.ts";
import { time, type DashboardPaths } from "./page-shell.ts";

function recentTable(type: DeclaredTypeOverview, paths: DashboardPaths, limit: number): Html {
  if (type.recent.length === 0) return html`<p class="muted" data-empty="${type.name}">No stream of this type yet.</p>`;
  const rows = type.recent.map(
    (s) =>
      html`<tr data-stream="${s.id}">
        <td>
          <a href="${paths.stream(type.name, s.id)}"><code>${s.id}</code></a>
        </td>
        <td><span class="badge ${s.state}">${s.state}</span></td>
        <td class="num">${s.version}</td>
        ${type.fenced && html`<td class="num" data-col="token">${s.token ?? "—"}</td>`}
        <td>${time(s.updatedAt)}</td>
      </tr>`,
  );
  return html`<table class="recent-streams" data-stream-type="${type.name}">
      <thead>
        <tr>
          <th>id</th>
          <th>state</th>
          <th class="num">version</th>
          ${type.fenced && html`<th class="num">token</th>`}
          <th>updated</th>
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
    ${type.recent.length >= limit && html`<p class="note">The ${limit} most recently updated are shown.</p>`}`;
}

/**
 * The overview's declared stream types: each one's machine drawn as verq's own are, with how many
 * of its streams are in each state, and its most recently updated streams linking to their
 * pages. Nothing when no type is declared.
 */
export function streamsSection(types: readonly DeclaredTypeOverview[], paths: DashboardPaths, limit: number): Html {
  if (types.length === 0) return html``;
  const figures = types.map(
    (type) =>
      html`<div class="stream-type" id="stream-type-${type.name}">
        <figure class="machine" data-stream-type="${type.name}">
          <figcaption>
            ${type.name} <span class="muted">(machine <code>${type.layout.graph.id}</code>) ${type.total} streams</span>
          </figcaption>
          ${drawMachine(type.layout, type.counts)} ${stayingTransitions(type.layout)}
        </figure>
        <div>
          <h3>Recently updated <code>${type.name}</code> streams</h3>
          ${recentTable(type, paths, limit)}
        </div>
      </div>`,
  );
  return html`<section id="streams">
    <h2>Declared streams</h2>
    <p class="note">
      The stream types the service declared (<code>defineStream</code>), each drawn from its own machine with how many streams are
      in each state now, counted from the generic projection (<code>stream_states</code>): a type that keeps its own projection
      counts none there.
    </p>
    ${figures}
  </section>`;
}
