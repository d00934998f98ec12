import { hostname } from "node:os";
import { DEAD_REASONS, isValidRedriveNote, isVerqError, type Clock, type DeadReason, type VerqErrorCode } from "@verq/core";
import type { JobQueue, VerqStore } from "@verq/store";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { bulkFilter, bulkRedrive, type BulkRedriveCounts, type BulkRedriveReport } from "../../operators/bulk-redrive.ts";
import type { JobsQuery } from "../jobs-list-page.ts";
import { formatRate, parseRate, type Rate } from "../../operators/rate.ts";
import { html, type Html } from "../html.ts";
import type { DashboardPageContext } from "../page-context.ts";
import { page, time, type DashboardPaths } from "../page-shell.ts";
import { FORM_TOKEN_FIELD, type DashboardAuth } from "./dashboard-auth.ts";
import { refusal, runAct } from "./run-act.ts";
import type { DashboardSession } from "./sessions.ts";

/** The lease of the bulk-redrive lock a dashboard's run holds, as `verq jobs redrive --all`'s default. */
const LOCK_LEASE_MS = 30_000;

/** One bulk redrive this dashboard started: what was asked, and what it did so far. */
interface BulkRun {
  readonly operator: string;
  readonly note: string;
  readonly rate: Rate;
  readonly reason: DeadReason | null;
  readonly startedAt: number;
  counts: BulkRedriveCounts;
  report: BulkRedriveReport | null;
  failure: { readonly code: string; readonly message: string } | null;
  readonly stop: AbortController;
  readonly done: Promise<void>;
}

/**
 * Registers the bulk redrive of the dead jobs a listing shows: `POST /jobs/redrive-dead` starts
 * one (from the form of `/jobs?state=dead`, with its reason filter), `GET /bulk` shows the run's
 * progress and its end, `POST /bulk/stop` stops it after the redrive in progress; each form is run
 * by {@link runAct} (the login's checks first). The run is `bulkRedrive`, as `verq jobs redrive
 * --all` runs it: the store's one bulk-redrive lock (another holder, here or in a CLI, is
 * `VERQ_BULK_RUNNING`), the pace the form names (the job machine's redrive limit as well), a
 * ticket note on every audited redrive, and only the jobs dead when the page was drawn. Closing
 * the app stops the run the same way.
 */
export function registerBulkActs(app: FastifyInstance, context: DashboardPageContext, store: VerqStore): void {
  const { auth, paths, clock, sendPage } = context;
  let run: BulkRun | null = null;

  app.addHook("onClose", async () => {
    run?.stop.abort();
    await run?.done;
  });

  app.post("/jobs/redrive-dead", (request, reply) =>
    runAct(context, request, reply, {
      back: (body) => paths.list("jobs", { state: "dead", reason: body.reason }),
      run: async ({ body, session }) => {
        if (run !== null && run.report === null && run.failure === null) {
          return refusal("VERQ_BULK_RUNNING", "a bulk redrive this dashboard started is under way; see its progress at /bulk");
        }
        if (!isValidRedriveNote(body.note)) {
          return refusal("VERQ_INVALID_NOTE", "the note must be a ticket id: 1-64 ASCII letters, digits or . _ - : # /");
        }
        const reason = body.reason === undefined || body.reason === "" ? null : body.reason;
        if (reason !== null && !(DEAD_REASONS as readonly string[]).includes(reason)) {
          return refusal("VERQ_INVALID_ARGUMENT", "the form names no dead reason; reload the listing");
        }
        const drawnAt = Number(body.drawn_at);
        const now = clock.now();
        if (!/^[0-9]{1,16}$/.test(body.drawn_at ?? "") || drawnAt > now) {
          return refusal("VERQ_INVALID_ARGUMENT", "the form names no time it was drawn at; reload the listing");
        }
        let rate: Rate;
        try {
          rate = parseRate(body.rate ?? "", "the rate");
        } catch (error) {
          if (!isVerqError(error)) throw error;
          return refusal(error.code, error.message);
        }
        const started = startRun(store, clock, {
          operator: session.operator,
          note: body.note,
          rate,
          reason: reason as DeadReason | null,
          olderThanMs: now - drawnAt,
        });
        // The lock is taken, or refused, before the first progress: answer with either.
        const first = await started.begun;
        if (first !== null) return first;
        run = started.run;
        return { next: `${paths.prefix}/bulk` };
      },
    }),
  );

  app.get("/bulk", (request, reply) => {
    const session = auth.session(request);
    return sendPage(reply, 200, bulkPage(paths, clock.now(), run, session === null ? null : { auth, session }));
  });

  app.post("/bulk/stop", (request, reply) =>
    runAct(context, request, reply, {
      run: async () => {
        run?.stop.abort();
        await run?.done;
        return { next: `${paths.prefix}/bulk` };
      },
    }),
  );
}

/** Starts a run; `begun` resolves once its lock is held (`null`) or with why it never began. */
function startRun(
  store: VerqStore,
  clock: Clock,
  ask: { operator: string; note: string; rate: Rate; reason: DeadReason | null; olderThanMs: number },
): { run: BulkRun; begun: Promise<{ code: VerqErrorCode; message: string } | null> } {
  const stop = new AbortController();
  let begin: (outcome: { code: VerqErrorCode; message: string } | null) => void = () => undefined;
  const begun = new Promise<{ code: VerqErrorCode; message: string } | null>((resolve) => (begin = resolve));
  const run = {
    operator: ask.operator,
    note: ask.note,
    rate: ask.rate,
    reason: ask.reason,
    startedAt: clock.now(),
    counts: { total: 0, redriven: 0, heldBack: 0, skipped: 0, failed: 0 },
    report: null,
    failure: null,
    stop,
  } as Omit<BulkRun, "done"> & { done?: Promise<void> };
  run.done = bulkRedrive(store, {
    note: ask.note,
    rate: ask.rate,
    reason: ask.reason ?? undefined,
    olderThanMs: ask.olderThanMs,
    owner: `dashboard-${ask.operator}@${hostname()}:${process.pid}`,
    leaseMs: LOCK_LEASE_MS,
    signal: stop.signal,
    clock,
    onProgress: (counts) => {
      run.counts = counts;
      begin(null);
    },
  }).then(
    (report) => {
      run.report = report;
      run.counts = report;
      begin(null);
    },
    (error: unknown) => {
      const code: VerqErrorCode = isVerqError(error) ? error.code : "VERQ_UNEXPECTED";
      run.failure = { code, message: error instanceof Error ? error.message : "the run failed" };
      begin({ code, message: run.failure.message });
    },
  );
  return { run: run as BulkRun, begun };
}

/**
 * The bulk redrive a jobs listing offers its reader: for a session, on the listing of dead jobs
 * filtered by nothing but a reason (what a bulk redrive selects by), its form with the number of
 * jobs it would take now; nothing otherwise.
 */
export function bulkActsFor(
  auth: DashboardAuth,
  jobs: JobQueue,
  paths: DashboardPaths,
): (request: FastifyRequest, query: JobsQuery, at: number) => Promise<Html | null> {
  return async (request, query, at) => {
    const session = auth.session(request);
    const dead = query.state === "dead" || (query.state === undefined && query.reason !== undefined);
    const narrowed = query.queue !== undefined || query.kind !== undefined || query.id !== undefined;
    if (session === null || !dead || narrowed) return null;
    const reason = query.reason as DeadReason | undefined;
    const count = await jobs.countDead(bulkFilter({ reason }, at));
    return bulkRedriveForm(paths, auth, session, { at, reason, count });
  };
}

/**
 * The form of a bulk redrive on the listing of dead jobs (with its reason filter): how many are
 * dead now, the pace and the ticket note, and the time the page was drawn, after which no death
 * is taken.
 */
export function bulkRedriveForm(
  paths: DashboardPaths,
  auth: DashboardAuth,
  session: DashboardSession,
  drawn: { readonly at: number; readonly reason: string | undefined; readonly count: number },
): Html {
  if (drawn.count === 0) return html``;
  return html`<form method="post" action="${paths.prefix}/jobs/redrive-dead" class="act" data-act="redrive-dead">
    <input type="hidden" name="${FORM_TOKEN_FIELD}" value="${auth.sessions.formToken(session)}" />
    <input type="hidden" name="drawn_at" value="${drawn.at}" />
    ${drawn.reason !== undefined && html`<input type="hidden" name="reason" value="${drawn.reason}" />`}
    <label>Ticket <input name="note" required maxlength="64" placeholder="OPS-1234" /></label>
    <label>Pace <input name="rate" required value="10/s" maxlength="16" title="N/s or N/m" /></label>
    <button type="submit">
      Redrive ${drawn.count} dead
      job${drawn.count === 1 ? "" : "s"}${drawn.reason === undefined ? " (all but the cancelled ones)" : ""}
    </button>
  </form>`;
}

function bulkPage(
  paths: DashboardPaths,
  at: number,
  run: BulkRun | null,
  viewer: { auth: DashboardAuth; session: DashboardSession } | null,
): string {
  if (run === null) {
    return page(
      paths,
      "Bulk redrive",
      at,
      html`<section id="bulk"><p>No bulk redrive has run from this dashboard.</p></section>`,
    );
  }
  const state = run.failure !== null ? "failed" : run.report === null ? "running" : run.report.stopped;
  const { counts } = run;
  return page(
    paths,
    "Bulk redrive",
    at,
    html`<section id="bulk" data-state="${state}">
      <h2>Bulk redrive <span class="badge">${state}</span></h2>
      <dl class="facts">
        <dt>operator</dt>
        <dd><code>${run.operator}</code></dd>
        <dt>ticket</dt>
        <dd><code>${run.note}</code></dd>
        <dt>reason</dt>
        <dd>${run.reason ?? "any (cancelled jobs aside)"}</dd>
        <dt>pace</dt>
        <dd>${formatRate(run.rate)}</dd>
        <dt>started</dt>
        <dd>${time(run.startedAt)}</dd>
      </dl>
      <table id="bulk-counts">
        <tr>
          <th>dead when it began</th>
          <th>redriven</th>
          <th>held back by the rate limit</th>
          <th>skipped</th>
          <th>failed</th>
        </tr>
        <tr>
          <td class="num" data-count="total">${counts.total}</td>
          <td class="num" data-count="redriven">${counts.redriven}</td>
          <td class="num" data-count="heldBack">${counts.heldBack}</td>
          <td class="num" data-count="skipped">${counts.skipped}</td>
          <td class="num" data-count="failed">${counts.failed}</td>
        </tr>
      </table>
      ${run.failure !== null && html`<p class="refused"><code>${run.failure.code}</code>: ${run.failure.message}</p>`}
      <p>
        Each redrive is audited on its job with the ticket:
        <a href="${paths.list("jobs", { state: "pending" })}">pending jobs</a>.
      </p>
      ${
        state === "running" &&
        viewer !== null &&
        html`<form method="post" action="${paths.prefix}/bulk/stop" class="act" data-act="stop">
          <input type="hidden" name="${FORM_TOKEN_FIELD}" value="${viewer.auth.sessions.formToken(viewer.session)}" />
          <button type="submit">Stop after the redrive in progress</button>
        </form>`
      }
    </section>`,
  );
}
