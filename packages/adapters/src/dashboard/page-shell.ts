import { html, type Html } from "./html.ts";

/** A time in ms since the epoch as ISO 8601 (UTC), or a dash for none. */
export const time = (ms: number | null | undefined): string =>
  ms === null || ms === undefined ? "—" : new Date(ms).toISOString();

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
  /** The path of the timeline page of a stream of a declared stream type. */
  stream(type: string, id: string): string {
    return `${this.prefix}/streams/${encodeURIComponent(type)}/${encodeURIComponent(id)}`;
  }
}

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
          <span>read-only</span><span class="meta">read at ${time(at)}</span>
        </header>
        <main>${body}</main>
      </body>
    </html> `.text;
}

/** The page of a request that names nothing the dashboard knows, or names it wrongly: the code and what to do. */
export function problemPage(paths: DashboardPaths, at: number, status: number, code: string, message: string): string {
  return page(
    paths,
    status === 404 ? "Not found" : "Bad request",
    at,
    html`<section id="problem" data-status="${status}">
      <h2>${status === 404 ? "Not found" : "Bad request"}</h2>
      <p><code>${code}</code>: ${message}</p>
      <p><a href="${paths.home}">Back to the overview</a></p>
    </section>`,
  );
}
