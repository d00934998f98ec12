import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { isVerqError, ManualClock } from "@verq/core";
import { GuidLedger, JobQueue, type VerqStore } from "@verq/store";
import { ENGINES, createTestDatabase, engineAvailable, tempDir, type TestDatabase } from "@verq/testing";
import Fastify, { type FastifyInstance } from "fastify";
import { Counter, Registry } from "prom-client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { measureLag, metricsPlugin, registerVerqMetrics, VERQ_METRIC_NAMES } from "../../src/index.ts";
import { expectedSamples, expectedTypes } from "./support/expected-figures.ts";
import { fillMetricsFixture, type MetricsFixture } from "./support/metrics-fixture.ts";
import { parseExposition, type Exposition } from "./support/prometheus-text.ts";

/**
 * verq's metrics in a service's own Fastify app, on a real server on 127.0.0.1, over a real
 * database of each engine: a real HTTP scrape, parsed, and every figure compared with what
 * `JobQueue.stats()`, `GuidLedger.stats()` and the queue's folders say at that moment.
 */
const LABEL_VALUES = new Set(["pending", "leased", "done", "dead", "permanent", "exhausted", "deadline", "cancelled"]);
for (const s of ["RECEIVED", "SENT", "DONE", "UNKNOWN", "FAILED", "inbox", "processing", "error"]) LABEL_VALUES.add(s);
// Queues, kinds (empty: none) and failure classes (empty: none recorded).
for (const s of ["default", "mail", "", "email.send", "report.build", "HttpError", "FetchError"]) LABEL_VALUES.add(s);
/** The key of the default queue's kindless jobs in `state`. */
const defaultJobs = (state: string) => `verq_jobs{kind="",queue="default",state="${state}"}`;

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] registerVerqMetrics and metricsPlugin`, () => {
    let database: TestDatabase;
    let store: VerqStore;
    let dir: { path: string; remove: () => void };
    let host: FastifyInstance | undefined;

    beforeEach(async () => {
      database = await createTestDatabase(engine, "metrics.sqlite");
      store = await database.open();
      dir = tempDir("verq-metrics-");
    });
    afterEach(async () => {
      await host?.close();
      host = undefined;
      await store.close();
      await database.dispose();
      dir.remove();
    });

    /** A host app with a route of its own and the registry mounted under /ops; resolves to its base URL. */
    async function serve(registry: Registry): Promise<string> {
      host = Fastify({ logger: false });
      host.get("/health", () => Promise.resolve({ ok: true }));
      await host.register(metricsPlugin, { prefix: "/ops", registry });
      return host.listen({ port: 0, host: "127.0.0.1" });
    }

    async function scrape(base: string, registry: Registry): Promise<Exposition> {
      const response = await fetch(`${base}/ops/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe(registry.contentType);
      return parseExposition(await response.text());
    }

    /** What the store and the folders say now, as the samples the exposition must hold. */
    async function figuresNow(fixture: MetricsFixture | null, clock: ManualClock, files: boolean) {
      const jobs = await new JobQueue(store).stats();
      const ledger = await new GuidLedger(store).stats();
      const lag = files && fixture !== null ? measureLag(fixture.files) : null;
      return { jobs, ledger, lag, samples: expectedSamples(jobs, ledger, lag, clock.now()) };
    }

    it("a scrape of GET /metrics gives every figure of stats() and the folders; _total metrics are counters; no label is an id, a GUID or a payload", async () => {
      const fixture = await fillMetricsFixture(store, dir.path);
      const registry = new Registry();
      registerVerqMetrics(registry, { store, files: fixture.files, clock: fixture.clock });
      const base = await serve(registry);

      const text = await (await fetch(`${base}/ops/metrics`)).text();
      const scraped = await scrape(base, registry);
      const now = await figuresNow(fixture, fixture.clock, true);
      expect(scraped.samples).toEqual(now.samples);
      expect(scraped.types).toEqual(expectedTypes(true));
      expect([...scraped.types.keys()].sort()).toEqual([...VERQ_METRIC_NAMES].sort());

      // The fixture really has something in every series, so a zero could not pass for a figure.
      expect(now.jobs.byState).toEqual({ pending: 3, leased: 1, done: 3, dead: 6 });
      expect(Object.values(now.jobs.dead.byReason).map((r) => r.count)).toEqual([2, 2, 1, 1]);
      expect(now.jobs.groups.map((g) => [g.queue, g.kind])).toEqual([
        ["default", null],
        ["mail", "email.send"],
        ["mail", "report.build"],
      ]);
      expect(scraped.samples.get('verq_jobs{kind="email.send",queue="mail",state="pending"}')).toBe(1);
      expect(scraped.samples.get('verq_jobs{kind="email.send",queue="mail",state="dead"}')).toBe(1);
      expect(scraped.samples.get('verq_jobs_dead_by_failure_class{error_class="HttpError",kind="email.send",queue="mail"}')).toBe(
        1,
      );
      expect(
        scraped.samples.get('verq_jobs_dead_by_failure_class{error_class="FetchError",kind="report.build",queue="mail"}'),
      ).toBe(1);
      // Dead without a recorded failure: a deadline, a cancel, a permanent finish that named none, an exhausted lease.
      expect(scraped.samples.get('verq_jobs_dead_by_failure_class{error_class="",kind="",queue="default"}')).toBe(4);
      expect(scraped.samples.get('verq_job_lease_expiries_total{kind="",queue="default"}')).toBe(1);
      expect([now.jobs.leaseExpiries, now.jobs.staleFinishesRefused, now.jobs.redrives]).toEqual([1, 1, 2]);
      expect(now.ledger.byState).toEqual({ RECEIVED: 1, SENT: 1, DONE: 1, UNKNOWN: 1, FAILED: 1 });
      expect(now.lag).toEqual({ inbox: 2, processing: 1, error: 3 });
      expect(scraped.samples.get("verq_jobs_oldest_dead_age_seconds")).toBe(120);
      expect(scraped.samples.get('verq_ledger_oldest_age_seconds{state="UNKNOWN"}')).toBe(115);
      expect(scraped.samples.get('verq_ledger_oldest_age_seconds{state="FAILED"}')).toBe(85);

      // Labels carry states, reasons and folder names only.
      expect(scraped.labelValues.filter((value) => !LABEL_VALUES.has(value))).toEqual([]);
      for (const id of [...fixture.jobIds, ...fixture.guids]) expect(text).not.toContain(id);
      for (const word of fixture.payloadWords) expect(text).not.toContain(word);

      // The host's own route still answers beside the plugin.
      expect(await (await fetch(`${base}/health`)).json()).toEqual({ ok: true });
    });

    it("figures are read at scrape time: a new job, a new file and a later clock show in the next scrape", async () => {
      const fixture = await fillMetricsFixture(store, dir.path);
      const registry = new Registry();
      registerVerqMetrics(registry, { store, files: fixture.files, clock: fixture.clock });
      const base = await serve(registry);
      const before = await scrape(base, registry);

      await new JobQueue(store, { clock: fixture.clock }).enqueue({ id: "job-late-10", payload: {} });
      writeFileSync(join(fixture.files, "inbox", "m-9.json"), "{}");
      fixture.clock.advance(10_000);
      const after = await scrape(base, registry);
      expect(after.samples).toEqual((await figuresNow(fixture, fixture.clock, true)).samples);
      expect(after.samples.get(defaultJobs("pending"))).toBe((before.samples.get(defaultJobs("pending")) ?? 0) + 1);
      expect(after.samples.get('verq_files{dir="inbox"}')).toBe(3);
      expect(after.samples.get("verq_jobs_oldest_dead_age_seconds")).toBe(130);
    });

    it("an empty store: every labelled series is present with 0; without files, no verq_files", async () => {
      const clock = new ManualClock();
      const registry = new Registry();
      registerVerqMetrics(registry, { store, clock });
      const scraped = await scrape(await serve(registry), registry);
      const expected = (await figuresNow(null, clock, false)).samples;
      expect(scraped.samples).toEqual(expected);
      expect(scraped.samples.size).toBe(4 + 4 + 1 + 3 + 5 + 2);
      expect([...scraped.samples.values()].every((value) => value === 0)).toBe(true);
      expect(scraped.types).toEqual(expectedTypes(false));
    });

    it("lives beside the service's own metrics in one registry", async () => {
      const registry = new Registry();
      const orders = new Counter({ name: "orders_created_total", help: "orders", registers: [registry] });
      orders.inc(3);
      registerVerqMetrics(registry, { store });
      const scraped = await scrape(await serve(registry), registry);
      expect(scraped.samples.get("orders_created_total")).toBe(3);
      expect(scraped.samples.get(defaultJobs("pending"))).toBe(0);
    });

    it("bad input: a files root that is not a file queue is VERQ_INVALID_ARGUMENT and registers nothing", () => {
      const registry = new Registry();
      let error: unknown;
      try {
        registerVerqMetrics(registry, { store, files: join(dir.path, "no-queue") });
      } catch (e) {
        error = e;
      }
      expect(isVerqError(error, "VERQ_INVALID_ARGUMENT")).toBe(true);
      expect(registry.getMetricsAsArray()).toEqual([]);
    });

    it("a scrape whose store cannot be read answers 500 VERQ_UNEXPECTED, and the service keeps serving", async () => {
      const other = await database.open();
      const registry = new Registry();
      registerVerqMetrics(registry, { store: other });
      const base = await serve(registry);
      await other.close();
      const response = await fetch(`${base}/ops/metrics`);
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ error: { code: "VERQ_UNEXPECTED", message: "the request could not be handled" } });
      expect((await fetch(`${base}/health`)).status).toBe(200);
    });
  });
}
