import type { DeadReason, GuidState, JobState } from "@verq/core";
import { JOB_STATS_NONE, OperatorPages, Schedules, type JobQueue, type VerqStore } from "@verq/store";
import type { FastifyInstance } from "fastify";
import { bulkActsFor } from "./auth/bulk-acts.ts";
import type { DashboardAuth } from "./auth/dashboard-auth.ts";
import { JOBS_PAGE_SIZE, JOBS_QUERY_KEYS, jobsListPage } from "./jobs-list-page.ts";
import { LEDGER_PAGE_SIZE, LEDGER_QUERY_KEYS, ledgerListPage } from "./ledger-list-page.ts";
import { listQuery } from "./list-query.ts";
import type { DashboardPageContext } from "./page-context.ts";
import { queuesPage } from "./queues-page.ts";
import { schedulesPage } from "./schedules-page.ts";

/**
 * Registers the listings on `app`: `GET /jobs` (filters `state`, `queue`, `kind` (`(none)`: jobs
 * without one), `reason`, `id` (a prefix), the cursor `after`), `GET /queues`, `GET /schedules` and
 * `GET /ledger` (`state`, `after`). Every filter is checked by the store's read before anything is
 * read; a bad one (an unknown state, a malformed name, a cursor the listing did not give, a field
 * the page does not take) is a `VERQ_INVALID_ARGUMENT` the plugin answers with a 400 page. With a
 * login, a session's listing of dead jobs offers their bulk redrive (`bulkActsFor`).
 */
export function registerListRoutes(
  app: FastifyInstance,
  context: DashboardPageContext<DashboardAuth | null>,
  readers: { readonly store: VerqStore; readonly jobs: JobQueue },
): void {
  const { auth, paths, clock, sendPage } = context;
  const { store, jobs } = readers;
  const pages = new OperatorPages(store);
  const schedules = new Schedules(store, jobs, { clock });
  const jobsActs = auth === null ? null : bulkActsFor(auth, jobs, paths);

  app.get("/jobs", async (request, reply) => {
    const query = listQuery(request.query, JOBS_QUERY_KEYS);
    const filter = {
      // Checked by the read, which refuses what is not a state or a reason.
      state: query.state as JobState | undefined,
      reason: query.reason as DeadReason | undefined,
      queue: query.queue,
      kind: query.kind === JOB_STATS_NONE ? null : query.kind,
      idPrefix: query.id,
    };
    const result = await jobs.page(filter, query.after ?? null, JOBS_PAGE_SIZE);
    const at = clock.now();
    const acts = (await jobsActs?.(request, query, at)) ?? null;
    return sendPage(reply, 200, jobsListPage(paths, at, query, result, acts));
  });

  app.get("/queues", async (_request, reply) => {
    // Two reads of the whole jobs table at once: on PostgreSQL each on a connection of its own.
    const [stats, due] = await Promise.all([jobs.stats(), pages.oldestDuePending()]);
    const queues = Object.entries(stats.queues)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, queueStats]) => ({ name, stats: queueStats, oldestDue: due.get(name) ?? null }));
    return sendPage(reply, 200, queuesPage(paths, clock.now(), queues));
  });

  app.get("/schedules", async (_request, reply) => {
    const all = await schedules.list({ all: true });
    return sendPage(reply, 200, schedulesPage(paths, clock.now(), all));
  });

  app.get("/ledger", async (request, reply) => {
    const query = listQuery(request.query, LEDGER_QUERY_KEYS);
    const states = query.state === undefined ? undefined : [query.state as GuidState];
    const result = await pages.ledger(states, query.after ?? null, LEDGER_PAGE_SIZE);
    return sendPage(reply, 200, ledgerListPage(paths, clock.now(), query, result));
  });
}
