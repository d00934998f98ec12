import { isVerqError } from "@verq/core";
import { JobQueue, checkStore, formatFinding, type VerqStore } from "@verq/store";
import { ENGINES, createTestDatabase, engineAvailable, type Engine, type TestDatabase } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";
import { diskOf } from "./helpers/disk-room.ts";
import { projectionRows, tableRows } from "./helpers/snapshot.ts";

/** Everything a write could have changed: the log and every job projection. */
const snapshot = async (store: VerqStore) => ({ events: await tableRows(store, "events"), ...(await projectionRows(store)) });

/** Runs `write`, which must fail with VERQ_STORE_FULL and change nothing; returns the error. */
async function expectFullAndNothingWritten(store: VerqStore, write: () => Promise<unknown>): Promise<Error> {
  const before = await snapshot(store);
  const error = await write().then(
    () => null,
    (e: unknown) => e as Error,
  );
  expect(error, "the write should have failed for want of room").not.toBeNull();
  expect(isVerqError(error, "VERQ_STORE_FULL"), String(error)).toBe(true);
  expect(await snapshot(store)).toEqual(before);
  return error!;
}

/** Calls `write` until it fails with VERQ_STORE_FULL (each success takes room); returns the successes before it. */
async function untilFull<T>(write: () => Promise<T>, most: number): Promise<T[]> {
  const done: T[] = [];
  for (let i = 0; i < most; i++) {
    try {
      done.push(await write());
    } catch (error) {
      if (isVerqError(error, "VERQ_STORE_FULL")) return done;
      throw error;
    }
  }
  throw new Error(`still room after ${most} writes`);
}

/** `verq check` on the store: nothing found, and the projections are the fold of the log. */
async function expectConsistent(store: VerqStore): Promise<void> {
  const report = await checkStore(store);
  expect(report.findings.map(formatFinding)).toEqual([]);
  const live = await projectionRows(store);
  await store.rebuildProjections();
  expect(await projectionRows(store)).toEqual(live);
}

const batch = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${String(i).padStart(3, "0")}`, payload: { text: "x".repeat(400) } }));

for (const engine of ENGINES as Engine[]) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] a full database`, () => {
    let database: TestDatabase | undefined;
    let store: VerqStore | undefined;
    afterEach(async () => {
      await store?.close();
      await database?.dispose();
      store = undefined;
      database = undefined;
    });

    it("enqueue, claim and finish fail with VERQ_STORE_FULL and write nothing; with room again the same store goes on, and check finds nothing", async () => {
      database = await createTestDatabase(engine);
      store = await database.open();
      const disk = await diskOf(database, store);
      const queue = new JobQueue(store);
      await queue.enqueueMany(batch("seed", 30));
      const held = await queue.claimMany("worker", 20, { leaseMs: 600_000 });
      expect(held).toHaveLength(20);

      await disk.tighten();
      // Fill what room is left, one job at a time, until the first one that does not fit.
      const filled = await untilFull(
        () => queue.enqueue({ id: `fill-${Date.now()}-${Math.random()}`, payload: { n: 1 } }),
        5_000,
      );
      expect(filled.length).toBeGreaterThan(0);

      // A batch that does not fit leaves none of its jobs.
      const full = await expectFullAndNothingWritten(store, () => queue.enqueueMany(batch("batch", 200)));
      expect(full.message).toMatch(/full|disk space/);
      expect(full.message).toContain("nothing of it was kept");
      expect(await queue.get("batch-000")).toBeNull();
      expect(await queue.get("batch-199")).toBeNull();

      // Claims and finishes that still fit take the last of the room; the first that does not
      // fails whole: no token handed out, the job still leased with the token its worker holds.
      const claimed = await untilFull(() => queue.claim("late", { leaseMs: 600_000 }), 200);
      const fullClaim = await expectFullAndNothingWritten(store, () => queue.claim("late", { leaseMs: 600_000 }));
      expect(fullClaim.message).toMatch(/full|disk space/);
      let finished = 0;
      for (const job of held) {
        try {
          expect(await queue.finish(job.id, job.token, "ok")).toBe(true);
          finished++;
        } catch (error) {
          expect(isVerqError(error, "VERQ_STORE_FULL"), String(error)).toBe(true);
          break;
        }
      }
      const unfinished = held[finished];
      expect(unfinished, "every finish fitted: no room was ever missing").toBeDefined();
      await expectFullAndNothingWritten(store, () => queue.finish(unfinished!.id, unfinished!.token, "ok"));
      expect(await queue.get(unfinished!.id)).toMatchObject({ state: "leased", token: unfinished!.token });
      console.log(
        `[database-full:${engine}] filledJobs=${filled.length} claimsThatFitted=${claimed.filter((j) => j !== null).length} finishesThatFitted=${finished}`,
      );
      await expectConsistent(store);

      // Room again: the same store object, not reopened, takes the same writes.
      await disk.free();
      expect(await queue.finish(unfinished!.id, unfinished!.token, "ok")).toBe(true);
      expect((await queue.enqueueMany(batch("batch", 200))).every((r) => r.created)).toBe(true);
      expect(await queue.claim("late", { leaseMs: 600_000 })).not.toBeNull();
      await expectConsistent(store);
      const stats = await queue.stats();
      expect(stats.byState.done).toBe(finished + 1);
    });
  });
}
