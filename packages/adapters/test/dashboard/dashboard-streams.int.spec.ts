import { defineStream, machineGraph } from "@verq/core";
import { declareStream, readAllEvents, type VerqStore } from "@verq/store";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ticketDeclaration, ticketMachine, ticketStream } from "../../../core/test/ticket-stream.ts";
import { dashboardPlugin } from "../../src/dashboard/dashboard-plugin.ts";
import { createDashboardServer } from "../../src/dashboard/dashboard-server.ts";
import { MARKUP_TICKET, MARKUP_TITLE, T0, seedTickets, ticketStreamV2 } from "./support/seed-streams.ts";

/*
 * The stream types a service declared, on the dashboard over real HTTP on 127.0.0.1, on both
 * engines, from tickets written through `declareStream`: the ticket machine drawn with its
 * streams by state, the latest streams, each stream's page with its events in order (upcast,
 * with their schema versions), 404 pages, escaping of the service's own data, nothing written.
 */

const iso = (ms: number) => new Date(ms).toISOString();

/** Every `data-state="…" data-count="…"` pair of the figure of the declared type `type`. */
function drawnCounts(page: string, type: string): Record<string, string> {
  const figure = new RegExp(`<figure class="machine" data-stream-type="${type}">([\\s\\S]*?)</figure>`).exec(page)?.[1] ?? "";
  return Object.fromEntries(
    [...figure.matchAll(/<g class="[^"]*state[^"]*" data-state="([^"]+)" data-count="(\d*)">/g)].map((m): [string, string] => [
      m[1] ?? "",
      m[2] ?? "",
    ]),
  );
}

/** The rows of a stream page's timeline: version, time, type, schema cell and the `key=value` data fields. */
function timelineRows(page: string): [string, string, string, string, [string, string][]][] {
  return [
    ...page.matchAll(
      /<tr data-version="(\d+)" data-type="([^"]+)">[\s\S]*?<td>([0-9T:.Z-]+)<\/td>[\s\S]*?data-col="schema"[^>]*>([\s\S]*?)<\/td>\s*<td>([\s\S]*?)<\/td>\s*<\/tr>/g,
    ),
  ].map((m) => [
    m[1] ?? "",
    m[3] ?? "",
    m[2] ?? "",
    (m[4] ?? "")
      .replace(/<[^>]+>/g, "")
      .replace(/\s+/g, " ")
      .trim(),
    [...(m[5] ?? "").matchAll(/data-key="([^"]+)"\s*><span class="muted">[^<]*<\/span><code>([^<]*)<\/code>/g)].map(
      (d): [string, string] => [d[1] ?? "", d[2] ?? ""],
    ),
  ]);
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] declared streams on the dashboard`, () => {
    let database: TestDatabase;
    let store: VerqStore;
    let apps: FastifyInstance[];

    beforeEach(async () => {
      database = await createTestDatabase(engine, "streams.sqlite");
      store = await database.open();
      await seedTickets(store);
      apps = [];
    });
    afterEach(async () => {
      for (const app of apps) await app.close();
      await store.close();
      await database.dispose();
    });

    /** Serves the dashboard over `on` with `streams`; resolves to a GET of its pages. */
    async function dashboard(on: VerqStore, streams: Parameters<typeof createDashboardServer>[0]["streams"]) {
      const app = createDashboardServer({ store: on, streams, limit: 3 });
      apps.push(app);
      const base = await app.listen({ port: 0, host: "127.0.0.1" });
      return async (path: string) => {
        const response = await fetch(`${base}${path}`);
        return { status: response.status, csp: response.headers.get("content-security-policy"), body: await response.text() };
      };
    }

    it("/ draws the ticket machine with every state's count and lists the latest tickets, linking to their pages", async () => {
      const get = await dashboard(store, [ticketStream]);
      const page = await get("/");
      expect(page.status).toBe(200);
      expect(Object.keys(drawnCounts(page.body, "ticket"))).toEqual(machineGraph(ticketMachine).states);
      expect(drawnCounts(page.body, "ticket")).toEqual({ new: "0", open: "1", taken: "2", closed: "1" });
      expect(page.body).toContain('data-source="open" data-target="taken"');
      // The close that is taken is drawn; its refusal (a stale token) is not.
      expect(page.body).toContain('data-source="taken" data-target="closed"');
      expect(page.body).not.toContain("tokenMatches");
      expect(page.body).toMatch(/<figcaption>\s*ticket <span class="muted">\(machine <code>ticket<\/code>\) 4 streams/);
      // The three (the limit) most recently updated, latest first, each with its state, version, token and time.
      const rows = [
        ...page.body.matchAll(
          /<tr data-stream="([^"]*)">\s*<td>\s*<a href="([^"]*)">[\s\S]*?<span class="badge \w+">(\w+)<\/span>[\s\S]*?<td class="num">(\d+)<\/td>\s*<td class="num" data-col="token">(\d+)<\/td>\s*<td>([^<]*)<\/td>/g,
        ),
      ].map((m) => m.slice(1, 7));
      const escapedMarkup = "&lt;b&gt;t&lt;/b&gt;&amp;&#39;&quot;";
      expect(rows).toEqual([
        ["t-3", "/streams/ticket/t-3", "closed", "3", "1", iso(T0 + 180_000)],
        [
          escapedMarkup,
          `/streams/ticket/${encodeURIComponent(MARKUP_TICKET).replaceAll("'", "&#39;")}`,
          "open",
          "1",
          "0",
          iso(T0 + 120_000),
        ],
        ["t-4", "/streams/ticket/t-4", "taken", "3", "2", iso(T0 + 60_000)],
      ]);
      expect(page.body).toContain("The 3 most recently updated are shown.");
      expect(page.body).not.toContain("<b>t</b>");
    });

    it("/streams/ticket/ID shows the state, version and token, and every event in order with its schema version and data", async () => {
      const get = await dashboard(store, [ticketStream]);
      const page = await get("/streams/ticket/t-4");
      expect(page.status).toBe(200);
      expect(page.csp).toContain("default-src 'none'");
      expect(page.body).toMatch(/id="stream-state">taken</);
      expect(page.body).toMatch(/id="stream-version">3</);
      expect(page.body).toMatch(/id="stream-token">2</);
      expect(timelineRows(page.body)).toEqual([
        ["1", iso(T0 + 60_000), "ticket.opened", "1", [["title", "mail"]]],
        [
          "2",
          iso(T0 + 60_000),
          "ticket.taken",
          "1",
          [
            ["holder", "ann"],
            ["token", "1"],
          ],
        ],
        [
          "3",
          iso(T0 + 60_000),
          "ticket.taken",
          "1",
          [
            ["holder", "carl"],
            ["token", "2"],
          ],
        ],
      ]);
    });

    it("a stream page upcasts each event to its type's current schema and says which version it was stored at", async () => {
      // Another process of the service, running the ticket's next schema on the same database.
      const newer = await database.open();
      try {
        const tickets = declareStream(newer, ticketStreamV2, { clock: { now: () => T0 + 600_000 } });
        expect((await tickets.handle("t-9", { type: "open", title: "fax" })).accepted).toBe(true);
        const get = await dashboard(newer, [ticketStreamV2]);
        const old = timelineRows((await get("/streams/ticket/t-1")).body);
        expect(old[0]).toEqual([
          "1",
          iso(T0),
          "ticket.opened",
          "2 (stored at 1)",
          [
            ["title", "printer"],
            ["urgency", "normal"],
          ],
        ]);
        expect(old[1]?.[3]).toBe("1");
        // Written at version 2 (its machine writes no urgency): shown as stored, with no upcaster run.
        expect(timelineRows((await get("/streams/ticket/t-9")).body)).toEqual([
          ["1", iso(T0 + 600_000), "ticket.opened", "2", [["title", "fax"]]],
        ]);
      } finally {
        await newer.close();
      }
    });

    it("escapes the service's data and a stream id that are markup; the page loads nothing from elsewhere", async () => {
      const get = await dashboard(store, [ticketStream]);
      const page = await get(`/streams/ticket/${encodeURIComponent(MARKUP_TICKET)}`);
      expect(page.status).toBe(200);
      expect(page.body).not.toContain("<script");
      expect(page.body).not.toContain("<b>t</b>");
      expect(page.body).toContain(`<code>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</code>`);
      expect(page.body).toContain("&lt;b&gt;t&lt;/b&gt;&amp;&#39;&quot;");
      expect(page.body).not.toMatch(/https?:\/\/|src=|\/\/[a-z]/i);
      expect(MARKUP_TITLE).toContain("<script>");
    });

    it("an unknown stream, an undeclared type (verq's own included) and no type are 404 pages, a malformed id a 400 page; nothing is written", async () => {
      const get = await dashboard(store, [ticketStream]);
      const log = JSON.stringify(await readAllEvents(store.db));
      const cases: [string, number, string][] = [
        ["/streams/ticket/no-such-ticket", 404, "VERQ_NOT_FOUND"],
        ["/streams/order/t-1", 404, "VERQ_NOT_FOUND"],
        ["/streams/job/t-1", 404, "VERQ_NOT_FOUND"],
        ["/streams/ticket", 404, "VERQ_NOT_FOUND"],
        [`/streams/ticket/${"x".repeat(300)}`, 400, "VERQ_INVALID_ID"],
      ];
      for (const [path, status, code] of cases) {
        const page = await get(path);
        expect([path, page.status]).toEqual([path, status]);
        expect(page.body).toContain(`<code>${code}</code>`);
      }
      expect((await get("/streams/ticket/no-such-ticket")).body).toContain("no ticket stream has the id");
      expect((await get("/streams/order/t-1")).body).toContain("knows no declared stream type &quot;order&quot;");
      expect(JSON.stringify(await readAllEvents(store.db))).toBe(log);
    });

    it("shows the types the service declared on its store itself, and none on a store without any", async () => {
      // seedTickets declared the ticket on `store`: a dashboard given no definition finds it there.
      const get = await dashboard(store, undefined);
      expect(drawnCounts((await get("/")).body, "ticket")).toEqual({ new: "0", open: "1", taken: "2", closed: "1" });
      expect((await get("/streams/ticket/t-1")).status).toBe(200);
      const other = await database.open();
      try {
        const bare = await dashboard(other, undefined);
        const overview = await bare("/");
        expect(overview.status).toBe(200);
        expect(overview.body).not.toContain('id="streams"');
        expect((await bare("/streams/ticket/t-1")).status).toBe(404);
      } finally {
        await other.close();
      }
    });

    it("a type that keeps its own projection counts none, and its stream's page is the fold of its events", async () => {
      const desk = defineStream({ ...ticketDeclaration, name: "desk" });
      const other = await database.open();
      try {
        const own = { write: () => Promise.resolve(), clear: () => Promise.resolve() };
        const desks = declareStream(other, desk, { projection: own, clock: { now: () => T0 } });
        expect(
          (
            await desks.handle("d-1", [
              { type: "open", title: "chair" },
              { type: "take", holder: "dan" },
            ])
          ).accepted,
        ).toBe(true);
        const get = await dashboard(other, [desk]);
        expect(drawnCounts((await get("/")).body, "desk")).toEqual({ new: "0", open: "0", taken: "0", closed: "0" });
        const page = (await get("/streams/desk/d-1")).body;
        expect(page).toMatch(/id="stream-state">taken</);
        expect(page).toMatch(/id="stream-token">1</);
        expect(page).toContain('id="stream-folded"');
        expect(timelineRows(page).map((row) => row[2])).toEqual(["ticket.opened", "ticket.taken"]);
      } finally {
        await other.close();
      }
    });

    it("mounted with a prefix, every link of the declared streams carries it and leads to a page", async () => {
      const host = Fastify({ logger: false });
      apps.push(host);
      await host.register(dashboardPlugin, { prefix: "/ops", store, streams: [ticketStream] });
      const url = await host.listen({ port: 0, host: "127.0.0.1" });
      const links = [...(await (await fetch(`${url}/ops/`)).text()).matchAll(/href="(\/ops\/streams\/[^"]*)"/g)].map(
        (m) => m[1] ?? "",
      );
      expect(links).toHaveLength(4);
      for (const href of links) {
        const response = await fetch(`${url}${href.replaceAll("&amp;", "&").replaceAll("&#39;", "'")}`);
        expect([href, response.status]).toEqual([href, 200]);
      }
    });
  });
}
