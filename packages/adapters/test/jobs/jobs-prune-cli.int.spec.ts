import { ManualClock } from "@verq/core";
import { JobQueue } from "@verq/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import { verq } from "../support/run-cli.ts";

const DAY = 86_400_000;
const T0 = 1_700_000_000_000;

/** `verq jobs prune` and `verq jobs enqueue` of a pruned id, on both engines, with the clock of VERQ_NOW_MS. */
for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] verq jobs prune`, () => {
    let database: TestDatabase;
    let db: string;
    beforeEach(async () => {
      database = await createTestDatabase(engine, "queue.sqlite");
      db = database.db;
      // Two jobs done at T0, one pending since T0.
      const store = await database.open();
      try {
        const queue = new JobQueue(store, { clock: new ManualClock(T0), defaultDeadlineMs: 365 * DAY });
        for (const id of ["a", "b"]) {
          await queue.enqueue({ id, payload: { id } });
          const job = await queue.claim("w");
          await queue.finish(id, job?.token ?? 0, "ok");
        }
        await queue.enqueue({ id: "waiting", payload: {}, availableAt: T0 + 365 * DAY });
      } finally {
        await store.close();
      }
    });
    afterEach(async () => {
      delete process.env.VERQ_NOW_MS;
      await database.dispose();
    });

    it("--dry-run counts, a real run prunes done jobs at the boundary only, and an enqueue of a pruned id exits 3", async () => {
      process.env.VERQ_NOW_MS = String(T0 + 7 * DAY - 1);
      const early = await verq("jobs", "prune", "--db", db, "--done-older-than", "7d", "--json");
      expect(early.code).toBe(0);
      expect(JSON.parse(early.out)).toMatchObject({ pruned: { done: 0, dead: 0 } });

      process.env.VERQ_NOW_MS = String(T0 + 7 * DAY);
      const dry = await verq("jobs", "prune", "--db", db, "--done-older-than", "7d", "--dry-run");
      expect(dry.code).toBe(0);
      expect(dry.out).toContain("would prune done=2 dead=0");
      expect((await verq("jobs", "show", "a", "--db", db)).code).toBe(0);

      const run = await verq("jobs", "prune", "--db", db, "--done-older-than", "7d", "--batch", "1", "--json");
      expect(run.code).toBe(0);
      expect(JSON.parse(run.out)).toMatchObject({
        pruned: { done: 2, dead: 0 },
        batches: 2,
        kept: { pending: 1, leased: 0, done: 0, dead: 0 },
        dryRun: false,
      });
      expect((await verq("jobs", "show", "a", "--db", db)).code).toBe(4);
      expect((await verq("jobs", "show", "waiting", "--db", db)).code).toBe(0);

      const again = await verq("jobs", "enqueue", "--db", db, "--id", "a", "--payload", "{}", "--json");
      expect(again.code).toBe(3);
      expect(JSON.parse(again.out)).toMatchObject({ error: { code: "VERQ_JOB_ARCHIVED" } });
      expect((await verq("check", "--db", db)).code).toBe(0);
    });

    it("rejects bad options with exit 2 before the database is opened", async () => {
      for (const args of [
        ["--done-older-than", "soon"],
        ["--done-older-than", "7d", "--dead-older-than", "-1d"],
        ["--done-older-than", "7d", "--batch", "0"],
        ["--done-older-than", "7d", "--batch", "10001"],
        [],
      ]) {
        const r = await verq("jobs", "prune", "--db", "/nonexistent/dir/x.sqlite", ...args);
        expect(r.code, args.join(" ")).toBe(2);
      }
    });
  });
}
