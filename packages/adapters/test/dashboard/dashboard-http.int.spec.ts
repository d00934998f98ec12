import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { machineGraph, VERQ_MACHINES, type VerqMachineName } from "@verq/core";
import { JobQueue, readAllEvents, type VerqStore } from "@verq/store";
import { ENGINES, createTestDatabase, engineAvailable, tempDir, type TestDatabase } from "@verq/testing";
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dashboardPlugin } from "../../src/dashboard/dashboard-plugin.ts";
import { createDashboardServer } from "../../src/dashboard/dashboard-server.ts";
import { DRAWN_MACHINES } from "../../src/dashboard/drawn-machines.ts";
import { initQueue } from "../../src/files/queue-dirs.ts";
import { SCRIPT_ID, SECRET, SECRET_REQUEST, SEEDED, seedDashboard } from "./support/seed-dashboard.ts";

/*
 * O1: the dashboard's pages over real HTTP on 127.0.0.1, on both engines, from a world written
 * through the store's own services: status codes, counts drawn from the machines' definitions,
 * escaping, no payload unless one entry's is asked for, and nothing written by any request.
 */

const encoded = (id: string) => encodeURIComponent(id);

/** The `key=value` details of the timeline row of the event `type` (the first one), in order. */
function eventDetails(page: string, type: string): [string, string][] {
  const row =
    new RegExp(`<tr data-version="\\d+" data-type="${type.replace(".", "\\.")}">([\\s\\S]*?)</tr>`).exec(page)?.[1] ?? "";
  return [...row.matchAll(/data-key="([^"]+)"\s*><span class="muted">[^<]*<\/span><code>([^<]*)<\/code>/g)].map(
    (m): [string, string] => [m[1] ?? "", m[2] ?? ""],
  );
}

/** Every `data-state="…" data-count="…"` pair of one machine's figure. */
function drawnCounts(page: string, machine: VerqMachineName): Record<string, string> {
  const figure = new RegExp(`<figure class="machine" data-machine="${machine}">([\\s\\S]*?)</figure>`).exec(page)?.[1] ?? "";
  return Object.fromEntries(
    [...figure.matchAll(/<g class="[^"]*state[^"]*" data-state="([^"]+)" data-count="(\d*)">/g)].map((m): [string, string] => [
      m[1] ?? "",
      m[2] ?? "",
    ]),
  );
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] the dashboard over HTTP`, () => {
    let database: TestDatabase;
    let store: VerqStore;
    let app: FastifyInstance;
    let base: string;
    let queue: ReturnType<typeof tempDir>;

    beforeEach(async () => {
      database = await createTestDatabase(engine, "dashboard.sqlite");
      store = await database.open();
      await seedDashboard(store);
      queue = tempDir("verq-dashboard-queue-");
      const dirs = initQueue(queue.path);
      writeFileSync(join(dirs.inbox, "a.json"), "{}");
      writeFileSync(join(dirs.inbox, "b.json"), "{}");
      writeFileSync(join(dirs.error, "c.json"), "{");
      app = createDashboardServer({ store, filesRoot: queue.path });
      base = await app.listen({ port: 0, host: "127.0.0.1" });
    });
    afterEach(async () => {
      await app.close();
      await store.close();
      await database.dispose();
      queue.remove();
    });

    const get = async (path: string, init?: RequestInit) => {
      const response = await fetch(`${base}${path}`, init);
      return {
        status: response.status,
        type: response.headers.get("content-type"),
        csp: response.headers.get("content-security-policy"),
        body: await response.text(),
      };
    };

    it("/ draws each machine from its definition with the store's counts, and lists the dead letters, the last redrive and the open ledger entries", async () => {
      const page = await get("/");
      expect(page.status).toBe(200);
      expect(page.type).toBe("text/html; charset=utf-8");
      expect(page.csp).toContain("default-src 'none'");
      const figures = [...page.body.matchAll(/<figure class="machine" data-machine="([^"]*)"/g)].map((m) => m[1]);
      expect(figures).toEqual(DRAWN_MACHINES);
      for (const name of DRAWN_MACHINES) {
        expect(Object.keys(drawnCounts(page.body, name))).toEqual(machineGraph(VERQ_MACHINES[name]).states);
      }
      expect(drawnCounts(page.body, "job")).toEqual({ new: "", pending: "1", leased: "0", done: "1", dead: "3" });
      expect(drawnCounts(page.body, "guid")).toEqual({ NEW: "", RECEIVED: "0", SENT: "0", DONE: "1", UNKNOWN: "1", FAILED: "1" });
      expect(drawnCounts(page.body, "message")).toEqual({ new: "", inbox: "0", processing: "0", done: "1", error: "1" });
      // Arrows are the transitions that change state, labelled with their events and guards.
      expect(page.body).toContain('data-source="dead" data-target="pending"');
      expect(page.body).toContain("job.finish [outcomeIsPermanent]");
      expect(page.body).toContain("guid.resolve [inquiryFound]");

      const deadRows = [...page.body.matchAll(/<tr data-job="([^"]*)">[\s\S]*?<span class="badge dead">(\w+)<\/span>/g)].map(
        (m) => [m[1], m[2]],
      );
      expect(deadRows).toEqual([
        [SEEDED.claimedTwice, "permanent"],
        [SEEDED.exhausted, "exhausted"],
        ["&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;&quot;", "exhausted"],
      ]);
      expect(page.body).toMatch(
        /id="oldest-dead">\s*<a href="\/jobs\/order-7"><code>order-7<\/code><\/a> dead since\s+2026-01-15T09:00:30.000Z/,
      );
      expect(page.body).toMatch(
        /id="last-redrive">[\s\S]*mail-1[\s\S]*<code>OPS-12<\/code>[\s\S]*previous token<\/dt>\s*<dd>1<\/dd>[\s\S]*job now<\/dt>\s*<dd>pending/,
      );
      const ledgerRows = [...page.body.matchAll(/<tr data-guid="([^"]+)">/g)].map((m) => m[1]);
      expect(ledgerRows).toEqual([SEEDED.unknown, SEEDED.failed]);
      expect(page.body).toMatch(/<dd data-folder="inbox">2<\/dd>[\s\S]*<dd data-folder="error">1<\/dd>/);
    });

    it("/ shows the kinds with their jobs by state and dead jobs by last failure class, and each dead letter's kind and last failure", async () => {
      const page = (await get("/")).body;
      const kinds = [...page.matchAll(/<tr data-kind="([^"]+)">([\s\S]*?)<\/tr>/g)].map((m) => [
        m[1],
        [...(m[2] ?? "").matchAll(/data-state="\w+">(\d+)</g)].map((c) => Number(c[1])),
      ]);
      expect(kinds).toEqual(Object.entries(SEEDED.kinds));
      expect(page).toMatch(/<tr data-kind="mail\.send">[\s\S]*?<span class="badge" data-name="FetchError">FetchError 1<\/span>/);
      const byClass = /id="dead-by-class">([\s\S]*?)<\/dd>/.exec(page)?.[1] ?? "";
      expect([...byClass.matchAll(/data-name="([^"]+)">[^<]* (\d+)</g)].map((m) => [m[1], m[2]])).toEqual([
        ["(none)", "1"],
        ["FetchError", "1"],
        ["HttpError", "1"],
      ]);
      const deadRows = [
        ...page.matchAll(
          /<tr data-job="([^"]*)">[\s\S]*?data-col="kind"><code>([^<]*)<\/code>[\s\S]*?data-col="failure">(?:<code>)?([^<]*)</g,
        ),
      ].map((m) => [m[1], m[2], m[3]]);
      expect(deadRows).toEqual([
        [SEEDED.claimedTwice, "order.ship", "HttpError"],
        [SEEDED.exhausted, "mail.send", "FetchError"],
        ["&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;&quot;", "(none)", "—"],
      ]);
    });

    it("/jobs/ID shows the kind, the last failure with every field, and the failure of each event that carries one", async () => {
      const job = (await get(`/jobs/${SEEDED.claimedTwice}`)).body;
      expect(job).toContain('id="job-kind"><code>order.ship</code>');
      const last = /id="job-last-failure">([\s\S]*?)<\/dd>/.exec(job)?.[1] ?? "";
      expect(
        [...last.matchAll(/data-key="(\w+)"\s*><span class="muted">[^<]*<\/span>(?:<code>)?([^<]*)</g)].map((m) => [m[1], m[2]]),
      ).toEqual([
        ["category", "permanent"],
        ["class", "HttpError"],
        ["code", "—"],
        ["status", "422"],
        ["attempt", "2"],
        ["token", "2"],
        ["at", "2026-01-15T09:00:30.000Z"],
      ]);
      expect(eventDetails(job, "job.failed")).toEqual([
        ["attempt", "1"],
        ["category", "unexpected"],
        ["class", "TypeError"],
      ]);
      expect(eventDetails(job, "job.died")).toEqual([
        ["reason", "permanent"],
        ["category", "permanent"],
        ["class", "HttpError"],
        ["status", "422"],
        ["attempt", "2"],
      ]);
      const exhausted = (await get(`/jobs/${SEEDED.exhausted}`)).body;
      expect(eventDetails(exhausted, "job.died")).toEqual([
        ["reason", "exhausted"],
        ["category", "retryable"],
        ["class", "FetchError"],
        ["code", "ECONNRESET"],
        ["attempt", "1"],
      ]);
      expect(exhausted).not.toContain("[object");
      const plain = (await get(`/jobs/${SEEDED.done}`)).body;
      expect(plain).toContain('id="job-kind"><code>(none)</code>');
      expect(plain).toContain('<dd id="job-last-failure">none</dd>');
    });

    it("escapes a job id that is markup, on / and on its own page, and the page loads nothing from elsewhere", async () => {
      const [overview, job] = [await get("/"), await get(`/jobs/${encoded(SCRIPT_ID)}`)];
      expect(job.status).toBe(200);
      for (const page of [overview, job]) {
        expect(page.body).not.toContain("<script");
        expect(page.body).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;&quot;");
        expect(page.body).not.toMatch(/https?:\/\/|src=|\/\/[a-z]/i);
        expect(page.body).not.toContain("<form");
      }
      // The link to it encodes the id, and that link leads to the page.
      expect(overview.body).toContain(`href="/jobs/${encoded(SCRIPT_ID).replaceAll("'", "&#39;")}"`);
    });

    it("/jobs/ID is the timeline in order with times, tokens and owners; the payload only with ?payload=1", async () => {
      const job = await get(`/jobs/${SEEDED.claimedTwice}`);
      expect(job.status).toBe(200);
      const rows = [
        ...job.body.matchAll(
          /<tr data-version="(\d+)" data-type="([\w.]+)">[\s\S]*?<td>([0-9T:.Z-]+)<\/td>[\s\S]*?data-col="token">([^<]*)<[\s\S]*?data-col="owner"><code>([^<]*)</g,
        ),
      ].map((m) => m.slice(1, 6));
      expect(rows).toEqual([
        ["1", "job.enqueued", "2026-01-15T09:00:00.000Z", "—", "—"],
        ["2", "job.claimed", "2026-01-15T09:00:00.000Z", "1", "worker-a"],
        ["3", "job.failed", "2026-01-15T09:00:10.000Z", "1", "—"],
        ["4", "job.leaseExpired", "2026-01-15T09:00:30.000Z", "1", "worker-a"],
        ["5", "job.claimed", "2026-01-15T09:00:30.000Z", "2", "worker-b"],
        ["6", "job.died", "2026-01-15T09:00:30.000Z", "2", "—"],
      ]);
      expect(job.body).not.toContain(SECRET);
      expect(job.body).toContain('href="?payload=1"');
      const withPayload = await get(`/jobs/${SEEDED.claimedTwice}?payload=1`);
      expect(withPayload.status).toBe(200);
      expect(withPayload.body).toContain(SECRET);
      expect((await get(`/jobs/${SEEDED.claimedTwice}?payload=yes`)).body).not.toContain(SECRET);
      // No other page shows any payload or request.
      for (const path of ["/", `/jobs/${SEEDED.redriven}`, `/ledger/${SEEDED.unknown}`, `/ledger/${SEEDED.answered}`]) {
        const page = await get(path);
        expect(page.body).not.toContain(SECRET);
        expect(page.body).not.toContain(SECRET_REQUEST);
      }
    });

    it("/ledger/GUID is the entry's timeline; the request and response only with ?payload=1", async () => {
      const entry = await get(`/ledger/${SEEDED.unknown}`);
      expect(entry.status).toBe(200);
      expect([...entry.body.matchAll(/<tr data-version="\d+" data-type="([\w.]+)">/g)].map((m) => m[1])).toEqual([
        "guid.received",
        "guid.sent",
        "guid.unknown",
      ]);
      expect(entry.body).toMatch(/data-col="attempt">1</);
      const asked = await get(`/ledger/${SEEDED.answered}?payload=1`);
      expect(asked.body).toContain(SECRET_REQUEST);
      expect(asked.body).toContain("&quot;code&quot;:&quot;0000&quot;");
    });

    it("mounted with a prefix in a host app, every link carries the prefix and leads to a page", async () => {
      const host = Fastify({ logger: false });
      host.get("/health", () => ({ ok: true }));
      await host.register(dashboardPlugin, { prefix: "/ops", store });
      const url = await host.listen({ port: 0, host: "127.0.0.1" });
      try {
        const overview = await fetch(`${url}/ops/`);
        expect(overview.status).toBe(200);
        const links = [...(await overview.text()).matchAll(/href="([^"]*)"/g)].map((m) => m[1] ?? "");
        expect(links).toContain("/ops/assets/dashboard.css");
        expect(links).toContain(`/ops/jobs/${SEEDED.claimedTwice}`);
        expect(links).toContain(`/ops/ledger/${SEEDED.unknown}`);
        expect(links.filter((href) => href.startsWith("/") && !href.startsWith("/ops/"))).toEqual([]);
        for (const href of new Set(links.filter((l) => l.startsWith("/")))) {
          expect([href, (await fetch(`${url}${href.replaceAll("&amp;", "&").replaceAll("&#39;", "'")}`)).status]).toEqual([
            href,
            200,
          ]);
        }
        const unknown = await fetch(`${url}/ops/jobs/nope`);
        expect([unknown.status, await unknown.text()]).toEqual([404, expect.stringContaining("VERQ_UNKNOWN_JOB")]);
        expect(await (await fetch(`${url}/health`)).json()).toEqual({ ok: true });
      } finally {
        await host.close();
      }
    });

    it("unknown ids and paths are 404 pages, a malformed GUID a 400 page, a POST is refused; no request writes anything", async () => {
      const log = JSON.stringify(await readAllEvents(store.db));
      const jobs = JSON.stringify(await new JobQueue(store).stats());
      const cases: [string, RequestInit | undefined, number, string][] = [
        ["/jobs/no-such-job", undefined, 404, "VERQ_UNKNOWN_JOB"],
        [`/jobs/${"x".repeat(300)}`, undefined, 400, "VERQ_INVALID_ID"],
        ["/ledger/G-NONE", undefined, 404, "VERQ_UNKNOWN_GUID"],
        [`/ledger/${encoded("<x>")}`, undefined, 400, "VERQ_INVALID_GUID"],
        ["/nothing/here", undefined, 404, "VERQ_NOT_FOUND"],
        ["/", { method: "POST", body: "{}" }, 404, "VERQ_NOT_FOUND"],
        [`/jobs/${SEEDED.claimedTwice}`, { method: "DELETE" }, 404, "VERQ_NOT_FOUND"],
      ];
      for (const [path, init, status, code] of cases) {
        const page = await get(path, init);
        expect([path, page.status, page.type]).toEqual([path, status, "text/html; charset=utf-8"]);
        expect(page.body).toContain(`<code>${code}</code>`);
      }
      expect(JSON.stringify(await readAllEvents(store.db))).toBe(log);
      expect(JSON.stringify(await new JobQueue(store).stats())).toBe(jobs);
    });
  });
}

describe("the dashboard's stylesheet", () => {
  it("is served by the dashboard itself", async () => {
    const database = await createTestDatabase("sqlite");
    const store = await database.open();
    const app = createDashboardServer({ store });
    try {
      const base = await app.listen({ port: 0, host: "127.0.0.1" });
      const css = await fetch(`${base}/assets/dashboard.css`);
      expect([css.status, css.headers.get("content-type")]).toEqual([200, "text/css; charset=utf-8"]);
      expect(await css.text()).toContain(".machine-svg");
    } finally {
      await app.close();
      await store.close();
      await database.dispose();
    }
  });
});
