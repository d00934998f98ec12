import { JOB_STREAM, ManualClock } from "@verq/core";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JobQueue, checkStore, type ClaimedJob, type VerqStore } from "../src/index.ts";
import { EXTEND_LEASE, HELD_ROUND } from "../src/jobs/held-round.ts";

/*
 * A worker's round decides the outcomes of the jobs it holds from the states its claim or its
 * last heartbeat returned, without reading them again (J4 must still hold: only the current
 * token of a leased job finishes it). A held state another writer moved past must never be
 * written over: the round is decided again from the store.
 */
for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] a round that finishes held jobs`, () => {
    const T0 = 1_700_000_000_000;
    let database: TestDatabase;
    let store: VerqStore;
    let clock: ManualClock;
    let queue: JobQueue;

    beforeEach(async () => {
      database = await createTestDatabase(engine);
      store = await database.open();
      clock = new ManualClock(T0);
      queue = new JobQueue(store, { clock, defaultLeaseMs: 1_000 });
    });
    afterEach(async () => {
      await store.close();
      await database.dispose();
    });

    const held = (...jobs: ClaimedJob[]) => new Map(jobs.map((job) => [job.id, job]));
    const events = async () =>
      (
        await store.db
          .selectFrom("events")
          .select(["stream_id", "version", "type"])
          .where("stream_type", "=", JOB_STREAM)
          .orderBy("position")
          .execute()
      ).map((e) => `${e.stream_id}@${e.version} ${e.type}`);

    it("records the outcomes of held jobs and claims the next ones in one round, as a rebuild would fold them", async () => {
      await queue.enqueueMany([1, 2, 3].map((i) => ({ id: `job-${i}`, payload: { i } })));
      const [a, b] = await queue.claimMany("w", 2);
      // What a worker holds is the store's own state of each job, not a copy that drifted.
      expect([a, b]).toEqual([await queue.get(a!.id), await queue.get(b!.id)]);
      const round = await queue[HELD_ROUND](
        [
          { id: a!.id, token: a!.token, outcome: "ok" },
          {
            id: b!.id,
            token: b!.token,
            outcome: "retry",
            failure: { category: "retryable", errorClass: "Retryable", code: null, status: null },
          },
        ],
        "w",
        1,
        {},
        held(a!, b!),
      );
      expect(round.accepted).toEqual([true, true]);
      expect(round.claimed.map((j) => j.id)).toEqual(["job-3"]);
      expect((await queue.get(a!.id))?.state).toBe("done");
      expect(await queue.get(b!.id)).toMatchObject({ state: "pending", attempts: 1, lastFailure: { category: "retryable" } });
      expect((await checkStore(store)).findings).toEqual([]);
      const rows = await store.db.selectFrom("jobs").selectAll().orderBy("id").execute();
      await store.rebuildProjections();
      expect(await store.db.selectFrom("jobs").selectAll().orderBy("id").execute()).toEqual(rows);
    });

    it("refuses a stale holder's finish when another worker took the job over after its lease expired, writing nothing of it", async () => {
      await queue.enqueue({ id: "job-a", payload: {} });
      const first = (await queue.claim("w1"))!;
      clock.advance(1_000);
      const second = (await queue.claim("w2"))!;
      expect(second.token).toBe(first.token + 1);
      const before = await events();
      // w1 still holds the state its claim returned: one version behind the store.
      const round = await queue[HELD_ROUND]([{ id: "job-a", token: first.token, outcome: "ok" }], "w1", 0, {}, held(first));
      expect(round.accepted).toEqual([false]);
      expect(await events()).toEqual(before);
      expect(await queue.get("job-a")).toMatchObject({ state: "leased", token: second.token, owner: "w2" });
      expect((await queue.stats()).staleFinishesRefused).toBe(1);
      expect((await checkStore(store)).findings).toEqual([]);
    });

    it("decides again from the store when a held state is behind a heartbeat, and keeps the holder's finish", async () => {
      await queue.enqueue({ id: "job-a", payload: {} });
      const claimed = (await queue.claim("w"))!;
      clock.advance(400);
      const extended = await queue[EXTEND_LEASE]("job-a", claimed.token, 1_000);
      expect(extended).toMatchObject({
        state: "leased",
        token: claimed.token,
        leaseUntil: T0 + 1_400,
        version: claimed.version + 1,
      });
      // The round holds the state from before the heartbeat: its version check fails, the load decides.
      const round = await queue[HELD_ROUND]([{ id: "job-a", token: claimed.token, outcome: "ok" }], "w", 0, {}, held(claimed));
      expect(round.accepted).toEqual([true]);
      expect(await events()).toEqual([
        "job-a@1 job.enqueued",
        "job-a@2 job.claimed",
        "job-a@3 job.leaseExtended",
        "job-a@4 job.completed",
      ]);
      expect((await checkStore(store)).findings).toEqual([]);
    });

    it("finishes from the state a heartbeat returned", async () => {
      await queue.enqueue({ id: "job-a", payload: {} });
      const claimed = (await queue.claim("w"))!;
      const extended = (await queue[EXTEND_LEASE]("job-a", claimed.token, 1_000))!;
      expect(extended).toEqual(await queue.get("job-a"));
      const round = await queue[HELD_ROUND]([{ id: "job-a", token: claimed.token, outcome: "ok" }], "w", 0, {}, held(extended));
      expect(round.accepted).toEqual([true]);
      expect((await queue.get("job-a"))?.state).toBe("done");
      expect(await queue[EXTEND_LEASE]("job-a", claimed.token, 1_000)).toBeNull();
    });
  });
}
