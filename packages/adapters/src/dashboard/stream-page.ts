import type { DeclaredEventView, DeclaredStreamView } from "./declared-data.ts";
import { dataTable, num } from "./data-table.ts";
import { html, type Html } from "./html.ts";
import { page, time, type DashboardPaths } from "./page-shell.ts";

/** A value of an event's data as text: a dash for null, JSON for anything that is not a string. */
const shown = (value: unknown): string => (value === null ? "—" : typeof value === "string" ? value : JSON.stringify(value));

/**
 * The fields of a declared event's data, each as its name and its value. The data is the
 * service's own, so every field is shown (escaped, as everything on the page), but `at` when it
 * is the event's time, which has its own column.
 */
function dataDetails(event: DeclaredEventView): Html {
  const data = event.data;
  const items: Html[] = [];
  if (event.problem !== null) {
    items.push(
      html`<span class="detail upcast-problem" data-key="upcast"
        ><span class="muted">not upcast: </span><code>${event.problem}</code></span
      > `,
    );
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    items.push(html`<span class="detail" data-key="(data)"><span class="muted">data=</span><code>${shown(data)}</code></span>`);
    return html`${items}`;
  }
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (key === "at" && value === event.at) continue;
    items.push(
      html`<span class="detail" data-key="${key}"><span class="muted">${key}=</span><code>${shown(value)}</code></span> `,
    );
  }
  return html`${items}`;
}

/** The schema version an event is shown at, and the one it was written with when an upcaster brought it from there. */
const schemaCell = (event: DeclaredEventView): Html =>
  event.storedSchema === event.schema
    ? html`${event.schema}`
    : html`${event.schema} <span class="muted">(stored at ${event.storedSchema})</span>`;

function timeline(events: readonly DeclaredEventView[]): Html {
  const rows = events.map(
    (event) =>
      html`<tr data-version="${event.version}" data-type="${event.type}">
        <td class="num">${event.version}</td>
        <td class="num">${event.position}</td>
        <td>${time(event.at)}</td>
        <td><code>${event.type}</code></td>
        <td class="num" data-col="schema" data-stored="${event.storedSchema}">${schemaCell(event)}</td>
        <td>${dataDetails(event)}</td>
      </tr>`,
  );
  return dataTable("timeline", [num("v"), num("position"), "time", "event", num("schema"), "data"], rows);
}

/**
 * `/streams/TYPE/ID`: a stream of a declared type, its state, version and (when the type
 * declares fencing) holder token, and its timeline: every event in version order with its time,
 * type, schema version and the fields of its data, upcast to the event type's current schema.
 */
export function streamPage(paths: DashboardPaths, at: number, view: DeclaredStreamView): string {
  return page(
    paths,
    `${view.type} ${view.id}`,
    at,
    html`<section id="stream" data-stream-type="${view.type}" data-stream="${view.id}">
      <h2><code>${view.type}</code> <code>${view.id}</code> <span class="badge ${view.state}">${view.state}</span></h2>
      <dl class="facts">
        <dt>stream type</dt>
        <dd><code>${view.type}</code></dd>
        <dt>state</dt>
        <dd id="stream-state">${view.state}</dd>
        <dt>version</dt>
        <dd id="stream-version">${view.version}</dd>
        ${
          view.fenced &&
          html`<dt>token</dt>
            <dd id="stream-token">${view.token ?? "—"}</dd>`
        }
        <dt>events</dt>
        <dd>${view.events.length}</dd>
      </dl>
      ${
        view.folded &&
        html`<p id="stream-folded" class="note">
          The generic projection has no row of this stream: its state is the fold of its events.
        </p>`
      }
      <h3>Timeline</h3>
      ${timeline(view.events)}
    </section>`,
  );
}
