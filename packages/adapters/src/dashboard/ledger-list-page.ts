import { GUID_STATES } from "@verq/core";
import type { LedgerPage } from "@verq/store";
import { ledgerTable } from "./data-table.ts";
import { html } from "./html.ts";
import type { ListQuery } from "./list-query.ts";
import { page, type DashboardPaths } from "./page-shell.ts";

/** The query-string fields of `/ledger`: a state and the cursor of the page. */
export const LEDGER_QUERY_KEYS = ["state", "after"] as const;

/** The filters of `/ledger`, as the query string gave them. */
export type LedgerQuery = ListQuery<(typeof LEDGER_QUERY_KEYS)[number]>;

/** How many entries a page of `/ledger` shows. */
export const LEDGER_PAGE_SIZE = 50;

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
      ${ledgerTable(paths, "ledger-table", result.entries, { id: "ledger-empty", text: "No entry matches." })}
      <div class="pager">
        ${query.after !== undefined && html`<a id="first-page" href="${paths.list("ledger", { ...query, after: undefined })}">First page</a>`}
        ${result.next !== null && html`<a id="next-page" rel="next" href="${paths.list("ledger", { ...query, after: result.next })}">Next page</a>`}
      </div>
    </section>`,
  );
}
