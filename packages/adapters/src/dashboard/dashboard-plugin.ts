import { isVerqError, machineGraph, systemClock, VERQ_MACHINES, type Clock, type VerqErrorCode } from "@verq/core";
import { FileLedger, GuidLedger, JobQueue, type VerqStore } from "@verq/store";
import type { FastifyPluginCallback, FastifyReply } from "fastify";
import { edgeErrorMessage } from "../http/edge-errors.ts";
import { DASHBOARD_CSS } from "./dashboard-css.ts";
import { DeclaredReaders, type AnyStreamDefinition } from "./declared-data.ts";
import { DRAWN_MACHINES } from "./drawn-machines.ts";
import { readOverview } from "./dashboard-data.ts";
import { layoutMachine } from "./machine-diagram.ts";
import { overviewPage, type MachineLayouts } from "./overview-page.ts";
import { registerListRoutes } from "./list-routes.ts";
import { DashboardAuth, type DashboardAuthOptions } from "./auth/dashboard-auth.ts";
import { JOB_ACT_EVENTS, jobActForms, registerJobActs } from "./auth/job-actions.ts";
import { LEDGER_ACT_EVENTS, ledgerActForms, registerLedgerActs, type DashboardCoreOptions } from "./auth/ledger-actions.ts";
import { registerBulkActs } from "./auth/bulk-acts.ts";
import { registerLoginRoutes, viewerHtml } from "./auth/login-routes.ts";
import type { DashboardPageContext, SendPage } from "./page-context.ts";
import { pageErrorOf } from "./page-errors.ts";
import { DashboardPaths, problemPage, VIEWER_MARK } from "./page-shell.ts";
import { streamPage } from "./stream-page.ts";
import { jobPage, ledgerPage } from "./timeline-page.ts";

/** Options of {@link dashboardPlugin}. */
export interface DashboardPluginOptions {
  /** The store the dashboard reads; it never writes to it. */
  readonly store: VerqStore;
  /** The root of a file queue (`inbox/`, `processing/`, `done/`, `error/`) whose files the overview counts. */
  readonly filesRoot?: string;
  /** The most rows a table of the overview shows: 100. */
  readonly limit?: number;
  /** The clock of the pages' "read at" time: the system clock. */
  readonly clock?: Clock;
  /**
   * Stream types the service declared (`defineStream`), drawn on the overview with their streams
   * by state and each stream's timeline at `/streams/TYPE/ID`. They are declared on `store` (a
   * name another definition took there is `VERQ_STREAM_TYPE_TAKEN`); the types the service
   * declared on the same store itself are shown as well.
   */
  readonly streams?: readonly AnyStreamDefinition[];
  /**
   * Operators who log in may act: redrive and cancel jobs from their pages. Without it (the
   * default) the dashboard is read-only: no login, no form, no route that writes.
   */
  readonly auth?: DashboardAuthOptions;
  /**
   * The relay's core, for operators who log in (with `auth` only): a ledger entry's page then
   * offers an UNKNOWN entry's inquiry ("Ask the core", as `verq relay resolve`) and a FAILED
   * entry's reprocess below the cap ("Send again", as `verq relay reprocess`). Without it, no
   * ledger act.
   */
  readonly core?: DashboardCoreOptions;
}

/**
 * What every page is sent with: no script runs, and nothing but this server's own stylesheet and
 * `data:` icons may load, so a page can neither run markup that slipped in nor reach the network.
 */
const headers = (forms: boolean) => ({
  "content-security-policy": `default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action ${
    forms ? "'self'" : "'none'"
  }; frame-ancestors 'none'`,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
});

/**
 * The dashboard as a Fastify plugin, for a service's own app or for `verq dashboard`:
 * `GET /` (the job, GUID and message machines drawn from their definitions with their counts, the dead letters
 * with their kinds and last failure classes, the last redrive, the kinds, the UNKNOWN and FAILED ledger entries,
 * the file queue, the declared stream types with their streams by state and their latest streams), `GET
 * /jobs/:id` (a job with its kind and last failure, and its timeline with each event's failure), `GET
 * /ledger/:guid` (one stream's timeline; its payload only with `?payload=1`), the listings `GET /jobs`, `GET
 * /queues`, `GET /schedules` and `GET /ledger` (keyset pages, filters checked: see `registerListRoutes`) and `GET /streams/:type/:id` (a
 * declared stream's state and its timeline, each event upcast with the fields of its data). Server-rendered
 * HTML, every value escaped; an unknown id is a 404 page, a malformed one a 400 page. Without `auth`
 * it registers no route that writes; with it, the login's routes and the job acts (see
 * `registerLoginRoutes`, `registerJobActs`), each a `JobQueue` command, and with `core` the ledger
 * acts (`registerLedgerActs`), each the relay's operation on one entry. It reads through the store's services, but for the declared streams'
 * latest rows and events, which it selects from `stream_states` and `events` itself.
 */
export const dashboardPlugin: FastifyPluginCallback<DashboardPluginOptions> = (app, options, done) => {
  const { store } = options;
  const clock = options.clock ?? systemClock;
  const limit = options.limit ?? 100;
  const readers = {
    jobs: new JobQueue(store),
    guids: new GuidLedger(store, { clock }),
    files: new FileLedger(store),
    declared: new DeclaredReaders(store, options.streams ?? []),
  };
  // The machines do not change while the process runs: each is laid out once.
  const layouts = Object.fromEntries(
    DRAWN_MACHINES.map((name) => [name, layoutMachine(name, machineGraph(VERQ_MACHINES[name]))]),
  ) as MachineLayouts;

  // Links carry the prefix the plugin is mounted at, so the pages work under `/ops` as at the root.
  const paths = new DashboardPaths(app.prefix);
  const auth = options.auth === undefined ? null : new DashboardAuth(options.auth, clock);
  const core = options.core ?? null;
  // With a login, forms may post to the dashboard itself, and each page's header names its reader.
  const HEADERS = headers(auth !== null);
  const sendPage: SendPage = (reply, status, body) => {
    const text = auth === null ? body : body.replace(VIEWER_MARK, viewerHtml(paths, auth, auth.session(reply.request)));
    return reply.code(status).headers(HEADERS).type("text/html; charset=utf-8").send(text);
  };
  const problem = (reply: FastifyReply, status: number, code: VerqErrorCode, message: string) =>
    sendPage(reply, status, problemPage(paths, clock.now(), status, code, message));
  const withPayload = (query: unknown) => (query as { payload?: unknown } | undefined)?.payload === "1";

  app.setNotFoundHandler((request, reply) =>
    problem(reply, 404, "VERQ_NOT_FOUND", `the dashboard has no page at ${request.method} ${request.url.slice(0, 200)}`),
  );
  app.setErrorHandler((error, _request, reply) => {
    // A verq error at its status (bad input is 400), or what Fastify refused before a page was
    // read (a body too large, a content type it has no parser for), or 500.
    const { status, code } = pageErrorOf(error);
    if (isVerqError(error)) return problem(reply, status, code, error.message);
    if (status < 500) return problem(reply, status, code, edgeErrorMessage(code));
    return problem(reply, 500, code, error instanceof Error ? error.message : "the page could not be read");
  });

  app.get("/assets/dashboard.css", (_request, reply) =>
    reply
      .headers({ "cache-control": "no-cache", "x-content-type-options": "nosniff" })
      .type("text/css; charset=utf-8")
      .send(DASHBOARD_CSS),
  );

  app.get("/", async (_request, reply) => {
    const overview = await readOverview(readers, { now: clock.now(), limit, filesRoot: options.filesRoot ?? null });
    return sendPage(reply, 200, overviewPage(paths, layouts, overview));
  });

  registerListRoutes(app, { auth, paths, clock, sendPage }, { store, jobs: readers.jobs });
  if (auth !== null) {
    const acting: DashboardPageContext = { auth, paths, clock, sendPage };
    registerBulkActs(app, acting, store);
    registerLoginRoutes(app, acting);
    registerJobActs(app, acting, readers.jobs);
    if (core !== null) registerLedgerActs(app, acting, readers.guids, core);
  }

  app.get<{ Params: { id: string } }>("/jobs/:id", async (request, reply) => {
    const { id } = request.params;
    const job = await readers.jobs.get(id);
    if (job === null) return problem(reply, 404, "VERQ_UNKNOWN_JOB", `no job has the id ${JSON.stringify(id.slice(0, 200))}`);
    const events = await readers.jobs.history(id);
    const session = auth?.session(request) ?? null;
    const acted = (request.query as { acted?: unknown } | undefined)?.acted;
    const acting = {
      forms: auth === null || session === null ? null : jobActForms(paths, auth, session, job),
      actedType: typeof acted === "string" ? (JOB_ACT_EVENTS[acted as keyof typeof JOB_ACT_EVENTS] ?? null) : null,
    };
    return sendPage(reply, 200, jobPage(paths, clock.now(), job, events, withPayload(request.query), acting));
  });

  app.get<{ Params: { guid: string } }>("/ledger/:guid", async (request, reply) => {
    const { guid } = request.params;
    const entry = await readers.guids.get(guid);
    if (entry === null)
      return problem(reply, 404, "VERQ_UNKNOWN_GUID", `no ledger entry has the GUID ${JSON.stringify(guid.slice(0, 200))}`);
    const events = await readers.guids.history(guid);
    const session = auth?.session(request) ?? null;
    const acted = (request.query as { acted?: unknown } | undefined)?.acted;
    const acting = {
      forms:
        auth === null || session === null || core === null
          ? null
          : ledgerActForms(paths, auth, session, entry, { ledger: readers.guids, core, clock }),
      actedTypes: typeof acted === "string" ? (LEDGER_ACT_EVENTS[acted as keyof typeof LEDGER_ACT_EVENTS] ?? []) : [],
    };
    return sendPage(reply, 200, ledgerPage(paths, clock.now(), entry, events, withPayload(request.query), acting));
  });

  app.get<{ Params: { type: string; id: string } }>("/streams/:type/:id", async (request, reply) => {
    const { type, id } = request.params;
    if (!readers.declared.has(type)) {
      const message = `the dashboard knows no declared stream type ${JSON.stringify(type.slice(0, 64))}`;
      return problem(reply, 404, "VERQ_NOT_FOUND", message);
    }
    const view = await readers.declared.stream(type, id);
    if (view === null) {
      return problem(reply, 404, "VERQ_NOT_FOUND", `no ${type} stream has the id ${JSON.stringify(id.slice(0, 200))}`);
    }
    return sendPage(reply, 200, streamPage(paths, clock.now(), view));
  });

  done();
};
