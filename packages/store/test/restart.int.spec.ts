import fs from "node:fs";
import { ManualClock } from "@verq/core";
import { JobQueue, openStore } from "@verq/store";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { CRASH_EXIT_CODE, UNCOMMITTED_JOB, type CrashReport } from "./helpers/crash-report.ts";
import { helperScript, runTsChild } from "./helpers/run-ts-child.ts";
import { observeQueue } from "./helpers/snapshot.ts";
import { makeTempDir, type TempDir } from "./helpers/temp-dir.ts";
import { buildEveryState, deterministicQueue, runRandomWorkload } from "./helpers/workload.ts";

const JOURNAL_MODES = ["wal", "delete"] as const;

let tmp: TempDir | undefined;
afterEach(() => tmp?.remove());

describe("J9 restart: closing and reopening the same file loses nothing", () => {
  it.each(JOURNAL_MODES)(
    "journal %s: every job, history, list and stat (lastRedrive too) is identical after reopening",
    async (journalMode) => {
      tmp = makeTempDir("restart");
      const path = tmp.file("queue.sqlite");
      const clock = new ManualClock();
      const first = await openStore({ path, journalMode });
      const queue = deterministicQueue(first, clock);
      const ids = await buildEveryState(queue, clock);
      const before = await observeQueue(first, queue, ids);
      await first.close();

      // The scenario reached every state and every dead reason, and the last redrive is visible.
      const states = Object.values(before.jobs).map((j) => (j as { state: string; reason: string | null }).state);
      expect(new Set(states)).toEqual(new Set(["pending", "leased", "done", "dead"]));
      expect(before.stats.dead.byReason.permanent.count).toBeGreaterThan(0);
      expect(before.stats.dead.byReason.exhausted.count).toBe(2);
      expect(before.stats.dead.byReason.deadline.count).toBe(1);
      expect(before.stats.dead.byReason.cancelled.count).toBe(2);
      expect(before.stats.lastRedrive).toMatchObject({
        jobId: "redriven-pending",
        note: "INC#42",
        previousToken: 1,
        resultState: "pending",
      });
      // Two stale tokens, and the finish of the lease a cancel took away.
      expect(before.stats.staleFinishesRefused).toBe(3);
      expect(before.stats.leaseExpiries).toBe(2);
      expect(before.tables.redrives).toHaveLength(2);

      const second = await openStore({ path, journalMode });
      try {
        const reopened = deterministicQueue(second, clock);
        expect(await observeQueue(second, reopened, ids)).toEqual(before);

        // Leases and fencing tokens carry over: the old holder's token is still stale, the new one's is valid.
        expect(await reopened.finish("leased-taken-over", 1, "ok")).toBe(false);
        expect(await reopened.finish("leased-taken-over", 2, "ok")).toBe(true);
        expect(await reopened.claim("worker-c")).toMatchObject({ id: "redriven-pending", token: 2 });
      } finally {
        await second.close();
      }
    },
  );

  it.each(JOURNAL_MODES)(
    "journal %s: a random workload reads back identically after five close/reopen cycles",
    async (journalMode) => {
      tmp = makeTempDir("restart-cycles");
      const path = tmp.file("queue.sqlite");
      const clock = new ManualClock();
      let previous: Awaited<ReturnType<typeof observeQueue>> | undefined;
      for (let cycle = 0; cycle < 5; cycle++) {
        const store = await openStore({ path, journalMode });
        try {
          const queue = deterministicQueue(store, clock);
          // What the previous process saw just before it closed is exactly what this one sees.
          if (previous !== undefined) expect(await observeQueue(store, queue, Object.keys(previous.jobs))).toEqual(previous);
          await runRandomWorkload(queue, clock, 100 + cycle, 150);
          const everyId = (await sql<{ id: string }>`select id from jobs order by id`.execute(store.db)).rows.map((r) => r.id);
          previous = await observeQueue(store, queue, everyId);
        } finally {
          await store.close();
        }
      }
    },
  );

  it.each(JOURNAL_MODES)(
    "journal %s: a process that exits with code 73 mid-transaction (no close) leaves every committed change and none of the open one",
    async (journalMode) => {
      tmp = makeTempDir("restart-crash");
      const path = tmp.file("queue.sqlite");
      const reportPath = tmp.file("report.json");
      const child = runTsChild(helperScript("crash-writer.ts"), [path, reportPath, journalMode]);
      const code = await child.exited(20_000);
      expect(code, child.stderr()).toBe(CRASH_EXIT_CODE);
      const report = JSON.parse(fs.readFileSync(reportPath, "utf8")) as CrashReport;
      // The child really died with uncommitted work: its journal (or WAL) is still on disk.
      expect(fs.existsSync(`${path}-${journalMode === "wal" ? "wal" : "journal"}`)).toBe(true);

      const store = await openStore({ path, journalMode });
      try {
        const clock = new ManualClock(report.clockNow);
        const queue = new JobQueue(store, { clock });
        for (const [id, job] of Object.entries(report.jobs)) expect(await queue.get(id), id).toEqual(job);
        const states = Object.values(report.jobs).map((j) => (j as { state: string }).state);
        expect(states.filter((s) => s === "leased")).toHaveLength(3);
        expect(states.filter((s) => s === "done")).toHaveLength(3);
        const count = await sql<{ n: number }>`select count(*) as n from events`.execute(store.db);
        expect(Number(count.rows[0]?.n)).toBe(report.eventCount);
        expect((await queue.stats()).lastRedrive).toMatchObject({ note: "OPS-73", resultState: "pending" });

        // The transaction open at exit left nothing behind.
        expect(await queue.get(UNCOMMITTED_JOB)).toBeNull();
        const orphan = await sql`select * from events where stream_id = ${UNCOMMITTED_JOB}`.execute(store.db);
        expect(orphan.rows).toEqual([]);
        const counter = await sql`select * from counters where name = 'crash.uncommitted'`.execute(store.db);
        expect(counter.rows).toEqual([]);

        // The store is usable: the crashed worker's held leases are still held, the rest is claimable.
        const claimed = await queue.claim("restarted-worker", { leaseMs: 1_000 });
        expect(claimed?.state).toBe("leased");
        expect(["pending"]).toContain((report.jobs[claimed!.id] as { state: string }).state);
      } finally {
        await store.close();
      }
    },
  );
});
