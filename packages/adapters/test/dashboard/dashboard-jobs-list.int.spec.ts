import { readAllEvents, type VerqStore } from "@verq/store";
import { ENGINES, engineAvailable } from "@verq/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCRIPT_ID, SEEDED } from "./support/seed-dashboard.ts";
import { seedLists } from "./support/seed-lists.ts";
import { serveDashboard, type ServedDashboard } from "./support/served-dashboard.ts";
import { allJobKeys, documentedOrder, rowKeys, walkPages, type JobKeysRow } from "./support/list-pages.ts";

/*
 * O1: `/jobs` over real HTTP on both engines, from a world written through the store's services:
 * every filter and combination walks its pages by their next links and sees each matching job
 * exactly once, in the documented order; each row shows what the projection holds; every bad
 * filter is a 400 page with its code, and no request writes anything.
 */

type Filter = Readonly<Partial<Record<"state" | "queue" | "kind" | "reason" | "id", string>>>;

const FILTERS: readonly Filter[] = [
  {},
  { state: "pending" },
  { state: "leased" },
  { state: "done" },
  { state: "dead" },
  { state: "dead", reason: "permanent" },
  { reason: "exhausted" },
  { queue: "mail" },
  { state: "pending", queue: "mail" },
  { state: "leased", queue: "default" },
  { state: "done", queue: "mail" },
  { kind: "mail.send" },
  { kind: "(none)" },
  { state: "dead", kind: "report.build" },
  { id: "j-1" },
  { state: "pending", id: "late-" },
  { state: "leased", queue: "mail", kind: "mail.send", id: "j-" },
];

const matches = (f: Filter) => (job: JobKeysRow) =>
  (f.state === undefined || job.state === f.state) &&
  (f.reason === undefined || (job.state === "dead" && job.reason === f.reason)) &&
  (f.queue === undefined || job.queue === f.queue) &&
  (f.kind === undefined || job.kind === (f.kind === "(none)" ? null : f.kind)) &&
  (f.id === undefined || job.id.startsWith(f.id));

const pathOf = (f: Filter) => `/jobs?${new URLSearchParams(f as Record<string, string>).toString()}`;

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] the jobs listing over HTTP`, () => {
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
      return { status: response.status, csp: response.headers.get("content-security-policy"), body: await response.text() };
    };

    it("every state holds more jobs than a page, so that each state's walk crosses pages", () => {
      for (const state of ["pending", "leased", "done", "dead"]) {
        expect(jobs.filter((job) => job.state === state).length, state).toBeGreaterThan(50);
      }
    });

    for (const filter of FILTERS) {
      it(`${pathOf(filter)} walks every page by its next link and sees each matching job once, in the documented order`, async () => {
        const expected = jobs.filter(matches(filter)).sort(documentedOrder(filter.state ?? (filter.reason && "dead")));
        expect(expected.length).toBeGreaterThan(0);
        const pages = await walkPages(get, pathOf(filter));
        const seen = pages.flatMap((body) => rowKeys(body, "jobs-table", "data-job"));
        expect(seen).toEqual(expected.map((job) => job.id));
        expect(new Set(seen).size).toBe(seen.length);
        expect(pages.length).toBe(Math.max(1, Math.ceil(expected.length / 50)));
        for (const body of pages.slice(0, -1)) expect(rowKeys(body, "jobs-table", "data-job")).toHaveLength(50);
      });
    }

    it("a row shows the id linking to its timeline, the state and reason, queue, kind, attempts, last failure and update time", async () => {
      const page = (await get(`/jobs?id=${SEEDED.claimedTwice}`)).body;
      const row = /<tr data-job="order-7">([\s\S]*?)<\/tr>/.exec(page)?.[1] ?? "";
      expect(row).toContain('<a href="/jobs/order-7"><code>order-7</code></a>');
      const cells = [...row.matchAll(/<td[^>]*data-col="(\w+)"[^>]*>([\s\S]*?)<\/td>/g)].map((m) => [
        m[1],
        (m[2] ?? "")
          .replace(/<[^>]+>/g, "")
          .replace(/\s+/g, " ")
          .trim(),
      ]);
      expect(cells).toEqual([
        ["state", "dead permanent"],
        ["queue", "default"],
        ["kind", "order.ship"],
        ["attempts", "2 / 3"],
        ["failure", "HttpError"],
        ["updated", "2026-01-15T09:00:30.000Z"],
      ]);
      const mail = (await get(`/jobs?id=${SEEDED.exhausted}`)).body;
      expect(mail).toMatch(/data-col="failure"><code>FetchError<\/code> <code>ECONNRESET<\/code>/);
    });

    it("escapes a job id and a filter that are markup; the page loads nothing from elsewhere", async () => {
      for (const path of ["/jobs", `/jobs?id=${encodeURIComponent("<script>")}`]) {
        const page = await get(path);
        expect(page.status).toBe(200);
        expect(page.csp).toContain("default-src 'none'");
        expect(page.body).not.toContain("<script");
        expect(page.body).toContain("&lt;script&gt;");
        expect(page.body).not.toMatch(/https?:\/\/|src=|\/\/[a-z]/i);
      }
      expect(rowKeys((await get("/jobs")).body, "jobs-table", "data-job")).toContain(SCRIPT_ID);
    });

    it("each bad filter, cursor or field is a 400 page with VERQ_INVALID_ARGUMENT, and no request writes anything", async () => {
      const before = (await readAllEvents(store.db)).length;
      const doneNext = /<a id="next-page" rel="next" href="[^"]*after=([^"&]+)"/.exec((await get("/jobs?state=done")).body)?.[1];
      expect(doneNext).toBeDefined();
      const wrongKinds = Buffer.from(JSON.stringify(["id", 5])).toString("base64url");
      const bad = [
        "/jobs?state=bogus",
        "/jobs?state=cancelled",
        "/jobs?reason=nope",
        "/jobs?state=done&reason=permanent",
        `/jobs?queue=${encodeURIComponent("a\u0007b")}`,
        `/jobs?queue=${"q".repeat(300)}`,
        "/jobs?kind=9bad",
        `/jobs?id=${"a".repeat(257)}`,
        "/jobs?after=not-a-cursor!",
        `/jobs?state=dead&after=${doneNext ?? ""}`,
        `/jobs?after=${doneNext ?? ""}`,
        `/jobs?after=${wrongKinds}`,
        "/jobs?color=red",
        "/jobs?state=dead&state=done",
        "/ledger?state=BOGUS",
        "/ledger?after=xyz",
        "/ledger?page=2",
      ];
      for (const path of bad) {
        const page = await get(path);
        expect(page.status, path).toBe(400);
        expect(page.body, path).toContain('data-status="400"');
        expect(page.body, path).toContain("<code>VERQ_INVALID_ARGUMENT</code>");
        expect(page.csp, path).toContain("default-src 'none'");
      }
      expect((await readAllEvents(store.db)).length).toBe(before);
    });
  });
}
