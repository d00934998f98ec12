import { JobQueue, openStore } from "@verq/store";
import { afterEach, describe, expect, it } from "vitest";
import { expectFencedTokens, expectHandovers, expectLoggedClaims } from "./helpers/claim-run-checks.ts";
import type { ClaimWorkerLine } from "./helpers/claim-worker.ts";
import { readJsonLines } from "./helpers/read-jsonl.ts";
import { runInSteps } from "./helpers/run-in-steps.ts";
import { helperScript, runTsChild } from "./helpers/run-ts-child.ts";
import { projectionRows } from "./helpers/snapshot.ts";
import { makeTempDir, type TempDir } from "./helpers/temp-dir.ts";

const JOBS = 300;
const LEASE_MS = 4;
const IDLE_MS = 400;
// Generous: loading processes on two cores shared with other work can take many seconds.
const BARRIER_MS = 60_000;
const OWNERS = ["worker-a", "worker-b"] as const;
/** Worker `i` takes the handover job of the next worker over: a ring, so every job changes process. */
const takesOverFrom = (i: number): string => OWNERS[(i + 1) % OWNERS.length]!;

let tmp: TempDir | undefined;
afterEach(() => {
  tmp?.remove();
  tmp = undefined;
});

describe("J3 claim across processes: two OS processes, one SQLite file", () => {
  it.each(["wal", "delete"] as const)(
    "journal %s: no (job, token) handed out twice, tokens per job 1..max without gaps, each process takes a job over from the other, every job done at most once, no SQLITE_BUSY escapes",
    async (journalMode) => {
      tmp = makeTempDir("multi-process");
      const dbPath = tmp.file("queue.sqlite");
      const setup = await openStore({ path: dbPath, journalMode });
      const queue = new JobQueue(setup);
      for (let i = 0; i < JOBS; i++) {
        await queue.enqueue({ id: `job-${String(i).padStart(3, "0")}`, payload: { quantity: i } });
      }
      // One job per process in a queue of its own, for the handover (claim-worker.ts).
      for (const owner of OWNERS) await queue.enqueue({ id: `handover-${owner}`, payload: {}, queue: `handover-${owner}` });
      await setup.close();

      const files = OWNERS.map((owner) => tmp!.file(`${owner}.jsonl`));
      const children = OWNERS.map((owner, i) =>
        runTsChild(helperScript("claim-worker.ts"), [
          dbPath,
          owner,
          files[i]!,
          String(1_000 + i),
          String(LEASE_MS),
          String(IDLE_MS),
          journalMode,
          "0.05",
          takesOverFrom(i),
        ]),
      );
      // Each step is opened for both processes at once: both are loaded before either claims,
      // both hold a claim before either finishes, and each has taken the other's job over before
      // either finishes with its old token. The scheduler cannot change that order. The exits are
      // given as long: two cores shared with other work can make a run take several times its usual second.
      const steps = ["ready", "claimed", "took"];
      const { seconds } = await runInSteps(children, OWNERS, steps, { barrierMs: BARRIER_MS, exitMs: 60_000 });

      const lines = files.flatMap((file) => readJsonLines<ClaimWorkerLine>(file));
      const claims = lines.filter((l) => l.kind === "claim");
      const finishes = lines.filter((l) => l.kind === "finish");
      const claimsBy = Object.fromEntries(OWNERS.map((owner) => [owner, claims.filter((c) => c.owner === owner).length]));
      console.log(
        `[multi-process:sqlite ${journalMode}] jobs=${JOBS} claims=${claims.length} finishes=${finishes.length} ` +
          `refused=${finishes.filter((f) => !f.accepted).length} claimsBy=${JSON.stringify(claimsBy)} seconds=${seconds.toFixed(2)}`,
      );

      const tokensByJob = expectFencedTokens(claims);
      expect(tokensByJob.size).toBe(JOBS + OWNERS.length);
      expectHandovers(claims, finishes, OWNERS);

      const store = await openStore({ path: dbPath, journalMode });
      try {
        const check = new JobQueue(store);
        const logged = await expectLoggedClaims(store, claims);

        // The run ended quiet: every job is done or dead, with the last token handed out. A done
        // job was done once: one completion in its log and exactly one accepted ok, made with its
        // final token (fencing); a dead one has none.
        const completions = new Map<string, number>();
        for (const e of logged)
          if (e.type === "job.completed") completions.set(e.streamId, (completions.get(e.streamId) ?? 0) + 1);
        for (const [id, tokens] of tokensByJob) {
          const job = await check.get(id);
          expect(job?.state === "done" || job?.state === "dead", `${id} is ${job?.state}`).toBe(true);
          expect(job?.token, id).toBe(Math.max(...tokens));
          expect(completions.get(id) ?? 0, id).toBe(job?.state === "done" ? 1 : 0);
          const oks = finishes.filter((f) => f.id === id && f.outcome === "ok" && f.accepted).map((f) => f.token);
          expect(oks, id).toEqual(job?.state === "done" ? [job.token] : []);
        }
        const stats = await check.stats();
        expect(stats.leaseExpiries).toBeGreaterThanOrEqual(OWNERS.length);
        expect(stats.staleFinishesRefused).toBe(finishes.filter((f) => !f.accepted).length);

        // The log two processes interleaved folds back to the same projections.
        const live = await projectionRows(store);
        await store.rebuildProjections();
        expect(await projectionRows(store)).toEqual(live);
      } finally {
        await store.close();
      }
    },
    180_000,
  );

  // Regression: Kysely's Migrator on SQLite ran migrations with no transaction and no lock, so
  // processes opening one fresh file at the same time failed with "table events already exists".
  it("several processes opening one fresh file at the same instant all succeed", async () => {
    tmp = makeTempDir("multi-process-open");
    const failures: string[] = [];
    for (let round = 0; round < 3; round++) {
      const dbPath = tmp.file(`fresh-${round}.sqlite`);
      const children = Array.from({ length: 4 }, () => runTsChild(helperScript("open-store-once.ts"), [dbPath]));
      // Loading four processes at once on two shared cores can take far longer than opening the file.
      await Promise.all(children.map((c) => c.waitForLine((l) => l === "ready", 60_000)));
      const startAt = Date.now() + 50;
      for (const c of children) c.process.stdin.end(`go ${startAt}\n`);
      const codes = await Promise.all(children.map((c) => c.exited(20_000)));
      children.forEach((c, i) => {
        if (codes[i] !== 0) failures.push(`round ${round}: ${c.stdout().trim()} ${c.stderr().trim()}`);
      });
    }
    // Regression: journal_mode = wal used to fail at once with SQLITE_BUSY while another
    // process converted the fresh file; openSqlite now retries it.
    expect(failures).toEqual([]);
  }, 240_000);

  // Regression: JobQueue.claim read the clock before its transaction, so time spent waiting for
  // another process's write lock was taken out of the lease, and a claim could hand out a lease
  // that had already run out (J3: the lease is held while now < leaseUntil).
  it("a claim that waited for another process's write lock still gets its full lease", async () => {
    tmp = makeTempDir("multi-process-lease");
    const dbPath = tmp.file("queue.sqlite");
    const store = await openStore({ path: dbPath });
    try {
      const queue = new JobQueue(store);
      await queue.enqueue({ id: "late-lease", payload: { quantity: 7 } });
      const holder = runTsChild(helperScript("lock-holder.ts"), [dbPath, "400"]);
      await holder.waitForLine((l) => l === "locked");
      const job = await queue.claim("worker-a", { leaseMs: 200 });
      const returnedAt = Date.now();
      expect(await holder.exited()).toBe(0);
      expect(job?.id).toBe("late-lease");
      expect(job!.leaseUntil - returnedAt, "lease left when claim returned, ms").toBeGreaterThan(100);
    } finally {
      await store.close();
    }
  }, 20_000);
});
