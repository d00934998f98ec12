import { GUID_STATES, type LedgerEntry } from "@verq/core";
import type { LedgerPage } from "@verq/store";
import { html } from "./html.ts";
import type { ListQuery } from "./list-query.ts";
import { page, time, type DashboardPaths } from "./page-shell.ts";

/** The query-string fields of `/ledger`: a state and the cursor of the page. */
export const LEDGER_QUERY_KEYS = ["state", "after"] as const;

/** The filters of `/ledger`, as the query string gave them. */
export type LedgerQuery = ListQuery<(typeof LEDGER_QUERY_KEYS)[number]>;

/** How many entries a page of `/ledger` shows. */
export const LEDGER_PAGE_SIZE = 50;

function table(paths: DashboardPaths, entries: readonly LedgerEntry[]) {
  if (entries.length === 0) return html`<p id="ledger-empty" class="muted">No entry matches.</p>`;
  return html`<table id="ledger-table">
    <thead>
      <tr>
        <th>GUID</th>
        <th>state</th>
        <th>code</th>
        <th class="num">attempts</th>
        <th>since</th>
      </tr>
    </thead>
    <tbody>
      ${entries.map(
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
      )}
    </tbody>
  </table>`;
}

/**
 * `/ledger`: a page of the ledger entries of one state, or UNKNOWN and FAILED without one (the
 * entries a person must settle), oldest change first, each GUID linking to its timeline, with a
 * link to the next page while more follow.
 */
export function ledgerListPage(paths: DashboardPaths, at: number, query: LedgerQuery, result: LedgerPage): string {
  const states = [undefined, ...GUID_STATES].map((state) =>
    state === query.state
      ? html`<strong class="badge" aria-current="true">${state ?? "UNKNOWN and FAILED"}</strong>`
      : html`<a class="badge" href="${paths.list("ledger", { state })}">${state ?? "UNKNOWN and FAILED"}</a>`,
  );
  return page(
    paths,
    "Ledger",
    at,
    html`<section id="ledger-list" data-state="${query.state ?? "open"}">
      <h2>GUID ledger</h2>
      <div class="filters" id="ledger-filters"><span class="muted">state</span> ${states}</div>
      <p class="note">${result.entries.length} shown, oldest change first.</p>
      ${table(paths, result.entries)}
      <div class="pager">
        ${query.after !== undefined && html`<a id="first-page" href="${paths.list("ledger", { ...query, after: undefined })}">First page</a>`}
        ${result.next !== null && html`<a id="next-page" rel="next" href="${paths.list("ledger", { ...query, after: result.next })}">Next page</a>`}
      </div>
    </section>`,
  );
}
