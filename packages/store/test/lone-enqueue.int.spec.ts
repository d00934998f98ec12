import { isVerqError } from "@verq/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JobQueue, JobWorker, type VerqStore } from "../src/index.ts";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import { until } from "./helpers/until.ts";

/**
 * A lone `enqueue` without `trx`: on PostgreSQL one statement that is a transaction by itself
 * (its event insert-or-nothing, its row, its wake-up); on SQLite a transaction of its own. The
 * rules are the enqueue's whatever the path: the UNIQUE arbiter picks one creator among racing
 * writers, the others are answered from the winner's job, and the job's event and row are
 * written together.
 */
for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] a lone enqueue`, () => {
    let database: TestDatabase;
    let stores: VerqStore[];

    beforeEach(async () => {
      database = await createTestDatabase(engine, "lone.sqlite");
      stores = [await database.open()];
      // On PostgreSQL, several stores on one database: writers on connections of their own. On
      // SQLite one (its one writer; stores of one process on one file would wait on each other's
      // locks with the thread blocked), whose concurrent calls race all the same.
      const count = engine === "postgres" ? 4 : 1;
      for (let i = 1; i < count; i++) stores.push(await database.open());
    });
    afterEach(async () => {
      for (const store of stores) await store.close();
      await database.dispose();
    });

    async function eventsAndRows(store: VerqStore, id: string) {
      const events = await store.db.selectFrom("events").select(["version", "type"]).where("stream_id", "=", id).execute();
      const rows = await store.db.selectFrom("jobs").select(["state", "payload", "version"]).where("id", "=", id).execute();
      return { events, rows };
    }

    it("racing enqueues of one id from several stores: one creates the job, the same payload is a no-op, another payload a conflict", async () => {
      for (let round = 0; round < 10; round++) {
        const id = `race-${round}`;
        const attempts = [0, 1, 2, 3].flatMap((i) => {
          const queue = new JobQueue(stores[i % stores.length] as VerqStore);
          // Two writers with the job's own payload on each store, one with another payload.
          return [0, 1, 2].map((k) => queue.enqueue({ id, payload: { n: k === 2 ? 100 + i : 1 } }));
        });
        const results = await Promise.allSettled(attempts);
        const created = results.filter((r) => r.status === "fulfilled" && r.value.created);
        const noOps = results.filter((r) => r.status === "fulfilled" && !r.value.created);
        const conflicts = results.filter((r) => r.status === "rejected" && isVerqError(r.reason, "VERQ_ENQUEUE_CONFLICT"));
        expect(created).toHaveLength(1);
        expect(created.length + noOps.length + conflicts.length).toBe(results.length);
        const { events, rows } = await eventsAndRows(stores[0] as VerqStore, id);
        expect(events).toEqual([{ version: 1, type: "job.enqueued" }]);
        expect(rows).toHaveLength(1);
        expect(rows[0]).toMatchObject({ state: "pending", version: 1 });
        // Every no-op was answered with the job that was created, and the payload it kept.
        const kept = JSON.parse(String(rows[0]?.payload)) as { n: number };
        for (const r of noOps) if (r.status === "fulfilled") expect(r.value.job.payload).toEqual(kept);
        const winner = created[0];
        if (winner?.status === "fulfilled") expect(winner.value.job.payload).toEqual(kept);
      }
    });

    it("the job it creates is the one the store holds, and a worker finishes it", async () => {
      const queue = new JobQueue(stores[0] as VerqStore);
      const { created, job } = await queue.enqueue({ id: "one", payload: { to: "x" }, queue: "mail", priority: 3 });
      expect(created).toBe(true);
      expect(job).toMatchObject({ id: "one", state: "pending", queue: "mail", priority: 3, version: 1 });
      expect(await queue.get("one")).toEqual(job);
      const done: string[] = [];
      const worker = new JobWorker(queue, { owner: "w", queues: ["mail"], logger: null, sender: (j) => done.push(j.id) > 0 });
      expect(await worker.drain()).toMatchObject({ ok: 1 });
      expect(done).toEqual(["one"]);
    });

    if (engine === "postgres") {
      it("its wake-up reaches an idle worker of another store at once, long before its next poll", async () => {
        const [a, b] = stores as [VerqStore, VerqStore];
        const done: string[] = [];
        const worker = new JobWorker(new JobQueue(a), {
          owner: "idle",
          idleMs: 600_000,
          logger: null,
          sender: (job) => done.push(job.id) > 0,
        });
        worker.start();
        try {
          // Its first poll found nothing: from now on only a wake-up makes it look again. Its
          // listening connection may still be coming up, so an enqueue is sent every half second
          // until one is done: any that is done within the wait was delivered by a wake-up.
          await until(() => worker.report.claimTransactions >= 1, "the worker's first poll");
          const queue = new JobQueue(b);
          for (let k = 0; k < 20 && done.length === 0; k++) {
            await queue.enqueue({ id: `woken-${k}`, payload: null });
            await new Promise((resolve) => setTimeout(resolve, 500));
          }
          expect(done.length).toBeGreaterThan(0);
        } finally {
          await worker.stop();
        }
      });
    }
  });
}
