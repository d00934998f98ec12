import type { LedgerEntry } from "@verq/core";
import { html, type Html } from "./html.ts";
import { time, type DashboardPaths } from "./page-shell.ts";

/** A column's heading; `num` right-aligns it, as its cells are. */
export type Heading = string | { readonly label: string; readonly num: true };

/** What a table with no row shows instead: a muted paragraph. */
export interface EmptyTable {
  readonly id: string;
  readonly text: string;
}

/** A table of `rows` under `headings`; with `empty`, its paragraph instead when there is no row. */
export function dataTable(id: string, headings: readonly Heading[], rows: readonly Html[], empty?: EmptyTable): Html {
  if (rows.length === 0 && empty !== undefined) return html`<p id="${empty.id}" class="muted">${empty.text}</p>`;
  return html`<table id="${id}">
    <thead>
      <tr>
        ${headings.map((h) => (typeof h === "string" ? html`<th>${h}</th>` : html`<th class="num">${h.label}</th>`))}
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}

/** A numeric column's heading. */
export const num = (label: string): Heading => ({ label, num: true });

/** Ledger entries, each GUID linking to its timeline: its state, code, attempts and last change. */
export function ledgerTable(paths: DashboardPaths, id: string, entries: readonly LedgerEntry[], empty: EmptyTable): Html {
  const rows = entries.map(
    (e) =>
      html`<tr data-guid="${e.guid}">
        <td>
          <a href="${paths.ledger(e.guid)}"><code>${e.guid}</code></a>
        </td>
        <td><span class="badge ${e.state}">${e.state}</span></td>
        <td><code>${e.code}</code></td>
        <td class="num">${e.attempts}</td>
        <td>${time(e.updatedAt)}</td>
      </tr>`,
  );
  return dataTable(id, ["GUID", "state", "code", num("attempts"), "since"], rows, empty);
}
