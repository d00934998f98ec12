import { html, rawHtml, type Html } from "./html.ts";

/** A time in ms since the epoch as ISO 8601 (UTC), or a dash for none. */
export const time = (ms: number | null | undefined): string =>
  ms === null || ms === undefined ? "—" : new Date(ms).toISOString();

/** The listings of the dashboard, in the order its navigation bar shows them after the overview. */
export const LIST_PAGES = ["jobs", "queues", "schedules", "ledger"] as const;

/** One of {@link LIST_PAGES}. */
export type ListPage = (typeof LIST_PAGES)[number];

const NAV_LABELS: Readonly<Record<ListPage, string>> = {
  jobs: "Jobs",
  queues: "Queues",
  schedules: "Schedules",
  ledger: "Ledger",
};

/** The navigation bar: the overview and every listing. */
const nav = (paths: DashboardPaths): Html =>
  html`<nav id="nav">
    <a href="${paths.home}">Overview</a>
    ${LIST_PAGES.map((name) => html`<a href="${paths.list(name)}" data-page="${name}">${NAV_LABELS[name]}</a>`)}
  </nav>`;

/** Where the dashboard's pages are, under the prefix it is mounted at (`""` at the root, `/ops` …). */
export class DashboardPaths {
  constructor(readonly prefix: string) {}
  get home(): string {
    return `${this.prefix}/`;
  }
  get css(): string {
    return `${this.prefix}/assets/dashboard.css`;
  }
  /** The path of a job's timeline page. */
  job(id: string): string {
    return `${this.prefix}/jobs/${encodeURIComponent(id)}`;
  }
  /** The path of a ledger entry's timeline page. */
  ledger(guid: string): string {
    return `${this.prefix}/ledger/${encodeURIComponent(guid)}`;
  }
  /** The path of a listing (`/jobs`, `/queues`, `/schedules`, `/ledger`) with `query`'s non-empty values as its query string. */
  list(page: ListPage, query: Readonly<Record<string, string | undefined>> = {}): string {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== "") search.set(key, value);
    const text = search.toString();
    return `${this.prefix}/${page}${text === "" ? "" : `?${text}`}`;
  }
  /** The path of the timeline page of a stream of a declared stream type. */
  stream(type: string, id: string): string {
    return `${this.prefix}/streams/${encodeURIComponent(type)}/${encodeURIComponent(id)}`;
  }
}

/**
 * Where the header says who reads the page: `read-only` as drawn; a dashboard with a login puts
 * the operator and their logout form, or the way to log in, in its place as the page is sent.
 */
export const VIEWER_MARK = '<span class="viewer">read-only</span>';

/**
 * A whole page: the shell every page shares (title, header, the package's stylesheet) around
 * `body`. Nothing in it points outside the dashboard: no script, font, image or style from elsewhere.
 */
export function page(paths: DashboardPaths, title: string, at: number, body: Html): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${title} · verq dashboard</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href="${paths.css}" />
      </head>
      <body>
        <header>
          <h1><a href="${paths.home}">verq dashboard</a></h1>
          ${rawHtml(VIEWER_MARK)}<span class="meta">read at ${time(at)}</span>
        </header>
        ${nav(paths)}
        <main>${body}</main>
      </body>
    </html> `.text;
}

/** The title of a problem page, by HTTP status. */
const PROBLEM_TITLES: Readonly<Record<number, string>> = {
  401: "Not logged in",
  403: "Refused",
  404: "Not found",
  409: "Nothing was done",
  429: "Too many tries",
  502: "The core did not answer",
};

/**
 * The page of a request that names nothing the dashboard knows, names it wrongly, or was refused:
 * the code and what to do, and a link back (`back`, or the overview).
 */
export function problemPage(
  paths: DashboardPaths,
  at: number,
  status: number,
  code: string,
  message: string,
  back?: string,
): string {
  const title = PROBLEM_TITLES[status] ?? "Bad request";
  return page(
    paths,
    title,
    at,
    html`<section id="problem" data-status="${status}">
      <h2>${title}</h2>
      <p><code>${code}</code>: ${message}</p>
      <p>
        ${
          back === undefined
            ? html`<a href="${paths.home}">Back to the overview</a>`
            : html`<a id="problem-back" href="${back}">Back</a>`
        }
      </p>
    </section>`,
  );
}
