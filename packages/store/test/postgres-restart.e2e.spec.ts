import { JOB_STREAM } from "@verq/core";
import {
  JobQueue,
  JobWorker,
  checkStore,
  formatFinding,
  openStore,
  readAllEvents,
  type StoredEvent,
  type VerqStore,
} from "@verq/store";
import { privatePostgresAvailable, startPrivatePostgres, type PrivatePostgres } from "@verq/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectionRows } from "./helpers/snapshot.ts";
import { countBy, kindOf, until } from "./helpers/until.ts";

/*
 * The server is restarted for real (`pg_ctl restart -m fast`), so this test runs its own
 * PostgreSQL (initdb in a temporary folder, a free port): the shared server other test files use
 * at the same time is never touched.
 */

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const JOBS = 1_200;
const WORKERS = ["worker-a", "worker-b"] as const;

describe.skipIf(!privatePostgresAvailable())("PostgreSQL restarted while workers run", () => {
  let server: PrivatePostgres;
  const uncaught: string[] = [];
  const onUncaught = (error: unknown) => void uncaught.push(kindOf(error));
  beforeAll(async () => {
    server = await startPrivatePostgres();
    process.on("uncaughtException", onUncaught);
  }, 90_000);
  afterAll(async () => {
    process.off("uncaughtException", onUncaught);
    await server?.stop();
  });

  it("J3/J4: two JobWorkers ride out a server restart; every job completed exactly once by the log, no token handed out twice, and check finds nothing", async () => {
    const setup = await openStore(server.url);
    await new JobQueue(setup).enqueueMany(Array.from({ length: JOBS }, (_, i) => ({ id: `job-${i}`, payload: { i } })));
    await setup.close();

    const stores: VerqStore[] = [];
    const sends = new Map<string, number>();
    const errors: string[] = [];
    let accepted = 0;
    let acceptedAtRestart = -1;
    let restartedAt = 0;
    let acceptedAfterRestart = 0;
    const workers: JobWorker[] = [];
    for (const owner of WORKERS) {
      const store = await openStore(server.url);
      stores.push(store);
      // Leases short enough that the jobs of a claim whose answer the restart cut off come back within the test.
      const worker = new JobWorker(new JobQueue(store, { defaultLeaseMs: 1_500 }), {
        owner,
        concurrency: 4,
        batchSize: 8,
        idleMs: 50,
        sender: async (job) => {
          sends.set(job.id, (sends.get(job.id) ?? 0) + 1);
          await sleep(3);
          return true;
        },
        onFinished: (result) => {
          if (!result.accepted) return;
          accepted++;
          if (restartedAt > 0) acceptedAfterRestart++;
        },
        onError: (error) => void errors.push(kindOf(error)),
      });
      workers.push(worker);
    }
    const started = Date.now();
    try {
      for (const worker of workers) worker.start();
      await until(() => accepted >= JOBS * 0.2, "a fifth of the jobs done", 60_000, 25);
      acceptedAtRestart = accepted;
      const restartStarted = Date.now();
      await server.restart();
      restartedAt = Date.now();
      await until(() => accepted === JOBS, "every job done after the restart", 60_000, 25);
      const reports = await Promise.all(workers.map((w) => w.stop()));
      const seconds = (Date.now() - started) / 1000;
      console.log(
        `[postgres-restart] jobs=${JOBS} restartMs=${restartedAt - restartStarted} doneAtRestart=${acceptedAtRestart} ` +
          `doneAfterRestart=${acceptedAfterRestart} failedRounds=${reports.reduce((n, r) => n + r.errors, 0)} ` +
          `errors=${JSON.stringify(countBy(errors))} claimed=${reports.reduce((n, r) => n + r.claimed, 0)} ` +
          `sentTwice=${[...sends.values()].filter((n) => n > 1).length} uncaught=${uncaught.length} seconds=${seconds.toFixed(1)}`,
      );

      // The restart cut the workers off mid-run (every connection ends with it), and they went on
      // after it with no error: what was cut before its COMMIT ran again, what was cut at it was settled from the log.
      expect(acceptedAtRestart).toBeLessThan(JOBS);
      expect(countBy(errors), "errors the workers saw").toEqual({});
      expect(acceptedAfterRestart).toBeGreaterThan(0);
    } finally {
      // A no-op after the stops above; after a failure it ends the workers before their stores close.
      await Promise.all(workers.map((w) => w.stop().catch(() => undefined)));
      for (const store of stores) await store.close();
    }

    // Audited on a connection opened after the restart.
    const audit = await openStore(server.url);
    try {
      const events = await readAllEvents(audit.db, JOB_STREAM);
      const streams = new Map<string, StoredEvent[]>();
      for (const event of events) streams.set(event.streamId, [...(streams.get(event.streamId) ?? []), event]);
      expect(streams.size).toBe(JOBS);
      for (const [id, stream] of streams) {
        // Completed exactly once; each claim's token one more than the last, each outcome with the token of the claim before it.
        expect(stream.filter((e) => e.type === "job.completed").length, id).toBe(1);
        let token = 0;
        for (const event of stream) {
          const carried = (event.data as { token?: number }).token;
          if (event.type === "job.claimed") expect(carried, `${id} claim`).toBe(++token);
          else if (carried !== undefined) expect(carried, `${id} ${event.type}`).toBe(token);
        }
        expect(sends.get(id) ?? 0, id).toBeGreaterThan(0);
      }
      expect((await new JobQueue(audit).stats()).byState).toMatchObject({ done: JOBS, pending: 0, leased: 0, dead: 0 });
      expect((await checkStore(audit)).findings.map(formatFinding)).toEqual([]);
      const live = await projectionRows(audit);
      await audit.rebuildProjections();
      expect(await projectionRows(audit)).toEqual(live);
      // A connection the restart cut reached the caller that used it, and nothing else: the process lives on.
      expect(countBy(uncaught), "errors that would have ended the process").toEqual({});
    } finally {
      await audit.close();
    }
  }, 120_000);
});
