import { JOB_STATES } from "@verq/core";
import { GuidLedger, readAllEvents, type VerqStore } from "@verq/store";
import { ENGINES, engineAvailable } from "@verq/testing";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardPlugin } from "../../src/dashboard/dashboard-plugin.ts";
import { SEEDED } from "./support/seed-dashboard.ts";
import { LISTED, seedLists } from "./support/seed-lists.ts";
import { serveDashboard, type ServedDashboard } from "./support/served-dashboard.ts";
import { allJobKeys, rowKeys, unescapeHtml, walkPages, type JobKeysRow } from "./support/list-pages.ts";

/*
 * O1: `/queues`, `/schedules` and `/ledger` over real HTTP on both engines, the navigation bar and
 * the links from the overview and the timelines to the listings: each figure as the store holds
 * it, each ledger page walked once, every link leading to a page, nothing written.
 */

/** The text of each cell of the row `key` of a table, tags and runs of blanks removed. */
function rowCells(body: string, attribute: string, key: string): string[] {
  const row = new RegExp(`<tr ${attribute}="${key}">([\\s\\S]*?)</tr>`).exec(body)?.[1] ?? "";
  return [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) =>
    (m[1] ?? "")
      .replace(/<[^>]+>/g, "")
      .replace(/\s+/g, " ")
      .trim(),
  );
}

/** Every `href` inside the element `<tag id="id">`, unescaped. */
function hrefsIn(body: string, tag: string, id: string): string[] {
  const element = new RegExp(`<${tag} id="${id}"[^>]*>([\\s\\S]*?)</${tag}>`).exec(body)?.[1] ?? "";
  return [...element.matchAll(/href="([^"]+)"/g)].map((m) => unescapeHtml(m[1] ?? ""));
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] the queues, schedules and ledger listings over HTTP`, () => {
    let served: ServedDashboard | undefined;
    let store: VerqStore;
    let base: string;
    let jobs: JobKeysRow[];

    beforeAll(async () => {
      served = await serveDashboard(engine, "dashboard-lists.sqlite", async (seeded) => ({ clock: await seedLists(seeded) }));
      ({ store, base } = served);
      jobs = await allJobKeys(store);
    }, 120_000);
    afterAll(() => served?.close());

    const get = async (path: string) => {
      const response = await fetch(`${base}${path}`);
      return { status: response.status, body: await response.text() };
    };

    it("/queues shows each queue with its limit, its jobs by state and its earliest due pending job", async () => {
      const page = await get("/queues");
      expect(page.status).toBe(200);
      expect(rowKeys(page.body, "queues-table", "data-queue")).toEqual(["default", "mail"]);
      for (const queue of ["default", "mail"]) {
        const own = jobs.filter((job) => job.queue === queue);
        const counts = JOB_STATES.map((state) => String(own.filter((job) => job.state === state).length));
        const due = Math.min(...own.filter((job) => job.state === "pending").map((job) => job.availableAt));
        const limit = queue === LISTED.limited.queue ? String(LISTED.limited.maxLeased) : "none";
        expect(rowCells(page.body, "data-queue", queue)).toEqual([queue, limit, ...counts, new Date(due).toISOString()]);
      }
      // Each count links to those jobs.
      expect(page.body).toContain('href="/jobs?state=leased&amp;queue=mail"');
    });

    it("/schedules shows each schedule with its cron, queue, next slot, last slot fired and policy", async () => {
      const page = await get("/schedules");
      expect(page.status).toBe(200);
      expect(rowKeys(page.body, "schedules-table", "data-schedule")).toEqual([LISTED.nightly, LISTED.removed]);
      expect(rowCells(page.body, "data-schedule", LISTED.nightly)).toEqual([
        LISTED.nightly,
        "active",
        "0 3 * * * UTC",
        "mail",
        "2026-01-17T03:00:00.000Z",
        "—",
        "2026-01-16T03:00:00.000Z",
        "1",
      ]);
      expect(rowCells(page.body, "data-schedule", LISTED.removed)).toEqual([
        LISTED.removed,
        "removed",
        "*/5 * * * * UTC",
        "default",
        "—",
        "—",
        "—",
        "0",
      ]);
      expect(page.body).toContain("only the latest is enqueued");
    });

    for (const state of [undefined, "UNKNOWN", "FAILED", "DONE"] as const) {
      it(`/ledger${state === undefined ? "" : `?state=${state}`} walks its pages and sees each entry once, oldest change first`, async () => {
        const states = state === undefined ? (["UNKNOWN", "FAILED"] as const) : [state];
        const expected = (await new GuidLedger(store).list(states, 10_000)).map((entry) => entry.guid);
        expect(expected.length).toBeGreaterThan(0);
        const pages = await walkPages(get, state === undefined ? "/ledger" : `/ledger?state=${state}`);
        const seen = pages.flatMap((body) => rowKeys(body, "ledger-table", "data-guid"));
        expect(seen).toEqual(expected);
        expect(pages.length).toBe(Math.max(1, Math.ceil(expected.length / 50)));
        expect(pages[0]).toContain(`<a href="/ledger/${encodeURIComponent(expected[0] ?? "")}">`);
      });
    }

    it("the navigation bar of every page links to the overview and each listing, and each link leads to a page", async () => {
      for (const path of [
        "/",
        "/jobs",
        "/queues",
        "/schedules",
        "/ledger",
        `/jobs/${SEEDED.done}`,
        `/ledger/${SEEDED.unknown}`,
      ]) {
        const page = await get(path);
        expect(page.status, path).toBe(200);
        expect(hrefsIn(page.body, "nav", "nav"), path).toEqual(["/", "/jobs", "/queues", "/schedules", "/ledger"]);
      }
    });

    it("the overview links each state count and dead reason to its jobs, the timelines link back, and every such link leads to a page", async () => {
      const before = (await readAllEvents(store.db)).length;
      const overview = (await get("/")).body;
      const byState = hrefsIn(overview, "dd", "jobs-by-state");
      expect(byState).toEqual([...JOB_STATES.map((state) => `/jobs?state=${state}`), "/jobs"]);
      expect(hrefsIn(overview, "dd", "dead-by-reason")).toEqual([
        "/jobs?state=dead&reason=permanent",
        "/jobs?state=dead&reason=exhausted",
        "/jobs?state=dead&reason=deadline",
        "/jobs?state=dead&reason=cancelled",
      ]);
      expect(overview).toMatch(/<a class="badge" data-reason="permanent" href="[^"]+"\s*>permanent 61 /);
      const job = (await get(`/jobs/${SEEDED.claimedTwice}`)).body;
      expect(job).toContain('id="back-to-jobs" href="/jobs"');
      expect(job).toContain('id="jobs-in-state" href="/jobs?state=dead"');
      const entry = (await get(`/ledger/${SEEDED.unknown}`)).body;
      expect(entry).toContain('id="back-to-ledger" href="/ledger?state=UNKNOWN"');
      for (const path of [
        ...byState,
        ...hrefsIn(overview, "dd", "dead-by-reason"),
        "/ledger?state=UNKNOWN",
        "/jobs?state=dead",
      ]) {
        expect((await get(path)).status, path).toBe(200);
      }
      expect((await readAllEvents(store.db)).length).toBe(before);
    });

    it("mounted with a prefix, the navigation, the filters and the next page carry the prefix and lead to pages", async () => {
      const host = Fastify();
      await host.register(dashboardPlugin, { prefix: "/ops", store });
      try {
        const first = await host.inject({ method: "GET", url: "/ops/jobs?state=pending" });
        expect(first.statusCode).toBe(200);
        expect(hrefsIn(first.body, "nav", "nav")).toEqual(["/ops/", "/ops/jobs", "/ops/queues", "/ops/schedules", "/ops/ledger"]);
        const next = /<a id="next-page" rel="next" href="([^"]+)"/.exec(first.body)?.[1];
        expect(next).toMatch(/^\/ops\/jobs\?state=pending&amp;after=/);
        expect((await host.inject({ method: "GET", url: unescapeHtml(next ?? "") })).statusCode).toBe(200);
        for (const path of ["/ops/queues", "/ops/schedules", "/ops/ledger"]) {
          expect((await host.inject({ method: "GET", url: path })).statusCode, path).toBe(200);
        }
      } finally {
        await host.close();
      }
    });
  });
}
