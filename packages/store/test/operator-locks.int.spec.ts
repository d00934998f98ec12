import { LOCK_STREAM, ManualClock, decideLock, isVerqError, lockCommands, newLock } from "@verq/core";
import { ENGINES, engineAvailable } from "@verq/testing";
import { describe, expect, it } from "vitest";
import { JobQueue, OperatorLocks, readAllEvents, type VerqStore } from "../src/index.ts";
import { commitChanges } from "../src/command-path.ts";
import { lockStream } from "../src/streams/lock-stream.ts";
import { freshStores } from "./helpers/fresh-store.ts";

const T0 = 1_700_000_000_000;
const LEASE = 10_000;

const lockEventsOf = async (store: VerqStore) =>
  (await readAllEvents(store.db, LOCK_STREAM)).map((e) => ({ id: e.streamId, v: e.version, type: e.type, data: e.data }));

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] operator locks`, () => {
    const stores = freshStores();

    it("O1: one holder at a time; a second owner gets the holder and since when; the lease boundary hands it over with the next token", async () => {
      const { store } = await stores.open(engine);
      const clock = new ManualClock(T0);
      const locks = new OperatorLocks(store, { clock });
      const first = await locks.acquire("bulk-redrive", "ops-a:1", LEASE);
      expect(first).toEqual({
        acquired: true,
        lock: { name: "bulk-redrive", owner: "ops-a:1", token: 1, since: T0, leaseUntil: T0 + LEASE },
      });
      clock.advance(LEASE - 1);
      expect(await locks.acquire("bulk-redrive", "ops-b:2", LEASE)).toEqual({
        acquired: false,
        holder: { name: "bulk-redrive", owner: "ops-a:1", token: 1, since: T0, leaseUntil: T0 + LEASE },
      });
      // Another lock name is another stream: not held.
      expect((await locks.acquire("other", "ops-b:2", LEASE)).acquired).toBe(true);
      clock.advance(1);
      const second = await locks.acquire("bulk-redrive", "ops-b:2", LEASE);
      expect(second).toMatchObject({ acquired: true, lock: { owner: "ops-b:2", token: 2, since: T0 + LEASE } });
      expect((await lockEventsOf(store)).filter((e) => e.id === "bulk-redrive").map((e) => [e.v, e.type])).toEqual([
        [1, "lock.acquired"],
        [2, "lock.expired"],
        [3, "lock.acquired"],
      ]);
      // The holder that lost its lease is fenced: its token no longer extends or releases anything.
      expect(await locks.heartbeat("bulk-redrive", 1, LEASE)).toBeNull();
      expect(await locks.release("bulk-redrive", 1)).toBe(false);
      expect(await locks.get("bulk-redrive")).toMatchObject({ state: "held", owner: "ops-b:2", token: 2, version: 3 });
    });

    it("O1: heartbeats extend the lease only for the current token and before leaseUntil; release frees it for the next owner", async () => {
      const { store } = await stores.open(engine);
      const clock = new ManualClock(T0);
      const locks = new OperatorLocks(store, { clock });
      const got = await locks.acquire("bulk-redrive", "ops-a:1", LEASE);
      if (!got.acquired) throw new Error("not acquired");
      clock.advance(LEASE - 1);
      expect(await locks.heartbeat("bulk-redrive", 1, LEASE)).toEqual({
        name: "bulk-redrive",
        owner: "ops-a:1",
        token: 1,
        since: T0,
        leaseUntil: T0 + 2 * LEASE - 1,
      });
      expect(await locks.heartbeat("bulk-redrive", 2, LEASE)).toBeNull();
      clock.advance(LEASE);
      expect(await locks.heartbeat("bulk-redrive", 1, LEASE)).toBeNull(); // at leaseUntil: expired
      const before = await lockEventsOf(store);
      expect(await locks.release("bulk-redrive", 2)).toBe(false);
      expect(await lockEventsOf(store)).toEqual(before);
      expect(await locks.release("bulk-redrive", 1)).toBe(true);
      expect(await locks.get("bulk-redrive")).toMatchObject({ state: "free", owner: null, token: 1 });
      expect(await locks.release("bulk-redrive", 1)).toBe(false);
      expect(await locks.acquire("bulk-redrive", "ops-c:3", LEASE)).toMatchObject({ acquired: true, lock: { token: 2 } });
    });

    it("O1: bad input is refused with a code and writes nothing", async () => {
      const { store } = await stores.open(engine);
      const locks = new OperatorLocks(store);
      const codes: string[] = [];
      for (const call of [
        () => locks.acquire("bulk-redrive", "", LEASE),
        () => locks.acquire("", "ops", LEASE),
        () => locks.acquire("bulk-redrive", "ops", 0),
        () => locks.heartbeat("bulk-redrive", 0, LEASE),
        () => locks.release("bulk-redrive", -1),
      ]) {
        codes.push(
          await call().then(
            () => "none",
            (e: unknown) => (isVerqError(e) ? e.code : "other"),
          ),
        );
      }
      expect(codes).toEqual([
        "VERQ_INVALID_ARGUMENT",
        "VERQ_INVALID_ARGUMENT",
        "VERQ_INVALID_LEASE",
        "VERQ_INVALID_ARGUMENT",
        "VERQ_INVALID_ARGUMENT",
      ]);
      expect(await lockEventsOf(store)).toEqual([]);
    });

    it("O1: concurrent acquires from two connections: exactly one holds the lock, one event is written", async () => {
      const { store, database } = await stores.open(engine);
      const other = await database.open();
      try {
        for (let round = 0; round < 5; round++) {
          const name = `race-${round}`;
          const results = await Promise.all([
            new OperatorLocks(store).acquire(name, "ops-a:1", LEASE),
            new OperatorLocks(other).acquire(name, "ops-b:2", LEASE),
          ]);
          expect(results.filter((r) => r.acquired)).toHaveLength(1);
          const winner = results.find((r) => r.acquired);
          const loser = results.find((r) => !r.acquired);
          expect(loser).toEqual({ acquired: false, holder: winner?.acquired === true ? winner.lock : null });
          expect((await lockEventsOf(store)).filter((e) => e.id === name)).toHaveLength(1);
        }
      } finally {
        await other.close();
      }
    });

    it("O1: an acquire decided from a version another writer moved past is refused by the log's UNIQUE(stream, version), not by a lookup", async () => {
      const { store } = await stores.open(engine);
      const locks = new OperatorLocks(store, { clock: new ManualClock(T0) });
      const stale = newLock("bulk-redrive");
      expect((await locks.acquire("bulk-redrive", "ops-a:1", LEASE)).acquired).toBe(true);
      // Decided from version 0 although version 1 exists: the append must fail, and nothing of it stays.
      const decision = decideLock(stale, lockCommands.acquire({ owner: "ops-b:2", leaseMs: LEASE, now: T0 }));
      if (!decision.accepted) throw new Error("the stale decision should be an acquire");
      // A bare transaction: the store's own would take a conflict on PostgreSQL as a reason to try again.
      const error = await store.db
        .transaction()
        .execute((trx) =>
          commitChanges(trx, store.dialect, lockStream, [{ before: stale, after: decision.after, events: decision.events }]),
        )
        .catch((e: unknown) => e);
      expect(isVerqError(error, "VERQ_VERSION_CONFLICT") ? "conflict" : error).toBe("conflict");
      expect(await lockEventsOf(store)).toHaveLength(1);
      expect(await locks.get("bulk-redrive")).toMatchObject({ owner: "ops-a:1", token: 1 });
    });

    it("deadPage walks dead jobs by (dead since, id) in pages, with reason and dead-before filters; countDead counts the same", async () => {
      const { store } = await stores.open(engine);
      const clock = new ManualClock(T0);
      const queue = new JobQueue(store, { clock, defaultMaxAttempts: 1 });
      const ids = Array.from({ length: 7 }, (_, i) => `job-${i}`);
      await queue.enqueueMany(ids.map((id) => ({ id, payload: { id } })));
      const claimed = await queue.claimMany("w", 7);
      // Deaths at T0 (job-0..3: permanent, job-4..5: exhausted) and T0 + 5 s (job-6: permanent).
      await queue.finishMany(
        claimed.slice(0, 6).map((j, i) => ({ id: j.id, token: j.token, outcome: i < 4 ? "permanent" : "retry" })),
      );
      clock.advance(5_000);
      const last = claimed[6];
      if (last === undefined) throw new Error("7 claims expected");
      await queue.finishMany([{ id: last.id, token: last.token, outcome: "permanent" }]);
      const walk = async (filter: Parameters<JobQueue["deadPage"]>[0], size: number) => {
        const seen: string[] = [];
        let after = null;
        for (;;) {
          const page = await queue.deadPage(filter, after, size);
          if (page.length === 0) return seen;
          seen.push(...page.map((j) => j.id));
          const tail = page.at(-1);
          after = tail === undefined ? null : { deadSince: tail.deadSince ?? 0, id: tail.id };
        }
      };
      expect(await walk({}, 3)).toEqual(ids);
      expect(await walk({ reason: "permanent" }, 2)).toEqual(["job-0", "job-1", "job-2", "job-3", "job-6"]);
      expect(await walk({ deadAtOrBefore: T0 }, 4)).toEqual(ids.slice(0, 6));
      expect(await walk({ reason: "exhausted", deadAtOrBefore: T0 - 1 }, 4)).toEqual([]);
      expect(await queue.countDead({})).toBe(7);
      expect(await queue.countDead({ reason: "permanent", deadAtOrBefore: T0 })).toBe(4);
      // A job redriven meanwhile leaves the walk; the others are neither skipped nor repeated.
      await queue.redrive("job-1", { note: "OPS-1" });
      expect(await walk({}, 2)).toEqual(ids.filter((id) => id !== "job-1"));
    });
  });
}
