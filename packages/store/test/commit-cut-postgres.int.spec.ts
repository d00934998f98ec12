import { GUID_CODES, GUID_STREAM, JOB_STREAM, classifyCoreCall, isVerqError, readChannelRequest } from "@verq/core";
import { GuidLedger, JobQueue, JobWorker, openStore, readAllEvents, type StoredEvent, type VerqStore } from "@verq/store";
import {
  createTestDatabase,
  engineAvailable,
  startCuttingProxy,
  type CutPoint,
  type CuttingProxy,
  type TestDatabase,
} from "@verq/testing";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

/** Each cut point this many times for each command. */
const ROUNDS = 12;
const POINTS: readonly CutPoint[] = ["before", "after"];
const isCommit = (statement: string) => /^\s*commit\s*$/i.test(statement);
/** The lone enqueue's one statement, which is a transaction by itself. */
const isLoneEnqueue = (statement: string) => statement.includes("e as (insert into events");

/** The events of `type` of each job, by job. */
function eventsByJob(events: readonly StoredEvent[], type: string): Map<string, StoredEvent[]> {
  const byJob = new Map<string, StoredEvent[]>();
  for (const event of events) {
    if (event.streamType !== JOB_STREAM || event.type !== type) continue;
    byJob.set(event.streamId, [...(byJob.get(event.streamId) ?? []), event]);
  }
  return byJob;
}

describe.skipIf(!(await engineAvailable("postgres")))(
  "[postgres] commits cut on a lost connection are settled from the log",
  () => {
    let database: TestDatabase;
    let proxy: CuttingProxy;
    let store: VerqStore;
    let observer: VerqStore;
    let queue: JobQueue;

    beforeEach(async () => {
      database = await createTestDatabase("postgres");
      observer = await database.open();
      proxy = await startCuttingProxy(database.db);
      store = await openStore({ url: proxy.url, reconnectMs: 10_000 });
      queue = new JobQueue(store);
    });

    afterEach(async () => {
      await store.close();
      await observer.close();
      await proxy.close();
      await database.dispose();
    });

    /** Runs `call` with the next statement `matches` accepts cut at `at`, and checks the cut was made during it. */
    async function withCut<T>(matches: (statement: string) => boolean, at: CutPoint, call: () => Promise<T>): Promise<T> {
      const cut = proxy.cutNext(matches, at);
      const result = await call();
      expect(await cut).toMatchObject({ at });
      return result;
    }

    it("an enqueue of many jobs whose COMMIT is cut, before or after the server committed, reports each job created, and each is there once", async () => {
      let n = 0;
      for (let round = 0; round < ROUNDS; round++) {
        for (const at of POINTS) {
          const ids = [`m${n}-a`, `m${n}-b`, `m${n}-c`];
          n++;
          const results = await withCut(isCommit, at, () => queue.enqueueMany(ids.map((id) => ({ id, payload: { n } }))));
          expect(results.map((r) => [r.job.id, r.created])).toEqual(ids.map((id) => [id, true]));
        }
      }
      const enqueued = eventsByJob(await readAllEvents(observer.db), "job.enqueued");
      expect(enqueued.size).toBe(ROUNDS * POINTS.length * 3);
      for (const [id, events] of enqueued) expect(events.length, id).toBe(1);
      expect(proxy.cuts.filter((c) => c.at === "after")).toHaveLength(ROUNDS);
    });

    it("a lone enqueue whose one statement is cut, before or after the server ran it, reports the job created, and it is there once", async () => {
      for (let round = 0; round < ROUNDS; round++) {
        for (const at of POINTS) {
          const id = `one-${round}-${at}`;
          const result = await withCut(isLoneEnqueue, at, () => queue.enqueue({ id, payload: { round } }));
          expect([result.job.id, result.created]).toEqual([id, true]);
        }
      }
      const enqueued = eventsByJob(await readAllEvents(observer.db), "job.enqueued");
      expect(enqueued.size).toBe(ROUNDS * POINTS.length);
      for (const [id, events] of enqueued) expect(events.length, id).toBe(1);
    });

    it("a claim whose COMMIT is cut hands out the job that the log says it claimed, once, with the token the log holds", async () => {
      const total = ROUNDS * POINTS.length;
      await queue.enqueueMany(Array.from({ length: total }, (_, i) => ({ id: `c${String(i).padStart(3, "0")}`, payload: null })));
      const handed: { id: string; token: number }[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        for (const at of POINTS) {
          const job = await withCut(isCommit, at, () => queue.claim("w", { leaseMs: 60_000 }));
          expect(job).not.toBeNull();
          handed.push({ id: job!.id, token: job!.token });
        }
      }
      expect(new Set(handed.map((h) => h.id)).size).toBe(total);
      const claimed = eventsByJob(await readAllEvents(observer.db), "job.claimed");
      expect(claimed.size).toBe(total);
      for (const { id, token } of handed) {
        const events = claimed.get(id) ?? [];
        expect(events.length, id).toBe(1);
        expect((events[0]?.data as { token?: number }).token, id).toBe(token);
        expect(
          await observer.db.selectFrom("jobs").select(["state", "owner", "token"]).where("id", "=", id).executeTakeFirst(),
        ).toEqual({
          state: "leased",
          owner: "w",
          token,
        });
      }
    });

    it("a finish whose COMMIT is cut is accepted, and the job completed once", async () => {
      const total = ROUNDS * POINTS.length;
      await queue.enqueueMany(Array.from({ length: total }, (_, i) => ({ id: `f${i}`, payload: null })));
      const jobs = await queue.claimMany("w", total, { leaseMs: 60_000 });
      expect(jobs).toHaveLength(total);
      let i = 0;
      for (let round = 0; round < ROUNDS; round++) {
        for (const at of POINTS) {
          const job = jobs[i++]!;
          expect(await withCut(isCommit, at, () => queue.finish(job.id, job.token, "ok"))).toBe(true);
        }
      }
      const completed = eventsByJob(await readAllEvents(observer.db), "job.completed");
      expect(completed.size).toBe(total);
      for (const [id, events] of completed) expect(events.length, id).toBe(1);
      const { refused } = await observer.db
        .selectFrom("counters")
        .select((eb) => eb.fn.coalesce(eb.fn.max("value"), eb.lit(0)).as("refused"))
        .where("name", "=", "job.staleFinishesRefused")
        .executeTakeFirstOrThrow();
      expect(Number(refused)).toBe(0);
    });

    it("a worker whose round commits are cut again and again does every job once and reports no error", async () => {
      const total = 120;
      await queue.enqueueMany(Array.from({ length: total }, (_, i) => ({ id: `w${i}`, payload: null })));
      const sends = new Map<string, number>();
      let stop: () => void = () => {};
      const stopped = new Promise<void>((resolve) => (stop = resolve));
      // One cut after another, before and after the server committed, until the worker is done.
      const cutter = (async () => {
        for (let k = 0; ; k++) {
          const cut = proxy.cutNext(isCommit, POINTS[k % 2]!);
          if ((await Promise.race([cut, stopped])) === undefined) return proxy.disarm();
        }
      })();
      const errors: unknown[] = [];
      const report = await new JobWorker(queue, {
        owner: "w",
        batchSize: 8,
        concurrency: 4,
        leaseMs: 60_000,
        onError: (error) => errors.push(error),
        sender: (job) => {
          sends.set(job.id, (sends.get(job.id) ?? 0) + 1);
          return true;
        },
      }).drain();
      stop();
      await cutter;
      const cutsAt = (at: CutPoint) => proxy.cuts.filter((c) => c.at === at).length;
      console.log(
        `[commit-cut:worker] jobs=${total} cutsBefore=${cutsAt("before")} cutsAfter=${cutsAt("after")} rounds=${report.claimTransactions}`,
      );
      expect(errors).toEqual([]);
      expect(proxy.cuts.length).toBeGreaterThan(4);
      expect(report).toMatchObject({ ok: total, leftLeased: 0 });
      for (let i = 0; i < total; i++) expect(sends.get(`w${i}`), `w${i}`).toBe(1);
      const completed = eventsByJob(await readAllEvents(observer.db), "job.completed");
      expect(completed.size).toBe(total);
    });

    it("a relay whose ledger's COMMITs are cut gets each answer the log holds: claimed, sent, and done once", async () => {
      const ledger = new GuidLedger(store);
      for (let round = 0; round < ROUNDS / 2; round++) {
        for (const at of POINTS) {
          const guid = `g-${round}-${at}`;
          const text = JSON.stringify({ guid, amount: 1 });
          const request = readChannelRequest(text);
          if (!request.ok) throw new Error(`bad request ${text}`);
          const got = await withCut(isCommit, at, () =>
            ledger.receive({ guid, request: text, fingerprint: request.fingerprint, maxAttempts: 3 }),
          );
          expect(got.kind, guid).toBe("claimed");
          const sent = await withCut(isCommit, at, () => ledger.send(guid));
          expect(sent.accepted, guid).toBe(true);
          const done = await withCut(isCommit, at, () =>
            ledger.record(
              guid,
              sent.entry.attempts,
              classifyCoreCall(guid, { kind: "answered", status: 200, body: JSON.stringify({ guid, code: GUID_CODES.ok }) }),
            ),
          );
          expect([done.accepted, done.entry.state], guid).toEqual([true, "DONE"]);
        }
      }
      const events = (await readAllEvents(observer.db, GUID_STREAM)).filter((e) => e.streamType === GUID_STREAM);
      const byGuid = new Map<string, string[]>();
      for (const event of events) byGuid.set(event.streamId, [...(byGuid.get(event.streamId) ?? []), event.type]);
      expect(byGuid.size).toBe(ROUNDS);
      for (const [guid, types] of byGuid) expect(new Set(types).size, `${guid}: ${types.join(", ")}`).toBe(types.length);
    });

    it("a service's own transaction that appended no event, cut at COMMIT, is VERQ_STORE_CONNECTION_LOST; with an enqueue in it, it is settled", async () => {
      await sql`create table orders (id text primary key)`.execute(observer.db);
      const own = (id: string, enqueue: boolean) =>
        store.transaction(async (trx) => {
          await sql`insert into orders (id) values (${id})`.execute(trx);
          if (enqueue) await queue.enqueue({ id: `ship-${id}`, payload: null }, { trx });
        });
      const alone = await withCut(isCommit, "after", () => own("o1", false).catch((error: unknown) => error));
      expect(isVerqError(alone, "VERQ_STORE_CONNECTION_LOST")).toBe(true);
      await withCut(isCommit, "after", () => own("o2", true));
      await withCut(isCommit, "before", () => own("o3", true));
      const { rows } = await sql<{ id: string }>`select id from orders order by id`.execute(observer.db);
      expect(rows.map((r) => r.id)).toEqual(["o1", "o2", "o3"]);
      const enqueued = eventsByJob(await readAllEvents(observer.db), "job.enqueued");
      expect([...enqueued.keys()].sort()).toEqual(["ship-o2", "ship-o3"]);
    });
  },
);
