import { html, type Html } from "./html.ts";

/** A time in ms since the epoch as ISO 8601 (UTC), or a dash for none. */
export const time = (ms: number | null | undefined): string =>
  ms === null || ms === undefined ? "—" : new Date(ms).toISOString();

/** The path of a job's timeline page. */
export const jobHref = (id: string): string => `/jobs/${encodeURIComponent(id)}`;

/** The path of a ledger entry's timeline page. */
export const ledgerHref = (guid: string): string => `/ledger/${encodeURIComponent(guid)}`;

/**
 * A whole page: the shell every page shares (title, header, the package's stylesheet) around
 * `body`. Nothing in it points outside the dashboard: no script, font, image or style from elsewhere.
 */
export function page(title: string, at: number, body: Html): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${title} · verq dashboard</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href="/assets/dashboard.css" />
      </head>
      <body>
        <header>
          <h1><a href="/">verq dashboard</a></h1>
          <span>read-only</span><span class="meta">read at ${time(at)}</span>
        </header>
        <main>${body}</main>
      </body>
    </html> `.text;
}

/** The page of a request that names nothing the dashboard knows, or names it wrongly: the code and what to do. */
export function problemPage(at: number, status: number, code: string, message: string): string {
  return page(
    status === 404 ? "Not found" : "Bad request",
    at,
    html`<section id="problem" data-status="${status}">
      <h2>${status === 404 ? "Not found" : "Bad request"}</h2>
      <p><code>${code}</code>: ${message}</p>
      <p><a href="/">Back to the overview</a></p>
    </section>`,
  );
}
