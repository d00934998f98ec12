import { JobQueue, type VerqStore } from "@verq/store";
import { createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";
import { expectFencedTokens, expectHandovers, expectLoggedClaims } from "./helpers/claim-run-checks.ts";
import type { ClaimWorkerLine } from "./helpers/claim-worker.ts";
import { readJsonLines } from "./helpers/read-jsonl.ts";
import { runInSteps } from "./helpers/run-in-steps.ts";
import { helperScript, runTsChild } from "./helpers/run-ts-child.ts";
import { projectionRows } from "./helpers/snapshot.ts";
import { makeTempDir, type TempDir } from "./helpers/temp-dir.ts";

const JOBS = 200;
// Short enough that leases run out under four processes on two cores, so jobs change hands.
const LEASE_MS = 10;
const IDLE_MS = 500;
// Generous: loading four processes on two cores shared with other work can take many seconds.
const BARRIER_MS = 60_000;
const OWNERS = ["worker-a", "worker-b", "worker-c", "worker-d"] as const;
/** Worker `i` takes the handover job of the next worker over: a ring, so every job changes process. */
const takesOverFrom = (i: number): string => OWNERS[(i + 1) % OWNERS.length]!;

let tmp: TempDir | undefined;
let database: TestDatabase | undefined;
afterEach(async () => {
  tmp?.remove();
  tmp = undefined;
  await database?.dispose();
  database = undefined;
});

describe.skipIf(!(await engineAvailable("postgres")))(
  "J3 claim across processes: four OS processes, one PostgreSQL schema",
  () => {
    it("no (job, token) handed out twice, tokens per job 1..max without gaps, each process takes a job over from another, every job done once", async () => {
      database = await createTestDatabase("postgres");
      tmp = makeTempDir("multi-process-postgres");
      const setup = await database.open();
      try {
        const queue = new JobQueue(setup);
        // Attempts enough for every job to end done: no claim is finished permanent here.
        const batch = Array.from({ length: JOBS }, (_, i) => ({
          id: `job-${String(i).padStart(3, "0")}`,
          payload: { quantity: i },
          maxAttempts: 1_000,
        }));
        await queue.enqueueMany(batch);
        // One job per process in a queue of its own, for the handover (claim-worker.ts).
        await queue.enqueueMany(OWNERS.map((owner) => ({ id: `handover-${owner}`, payload: {}, queue: `handover-${owner}` })));
      } finally {
        await setup.close();
      }

      const files = OWNERS.map((owner) => tmp!.file(`${owner}.jsonl`));
      const children = OWNERS.map((owner, i) =>
        runTsChild(helperScript("claim-worker.ts"), [
          database!.db,
          owner,
          files[i]!,
          String(2_000 + i),
          String(LEASE_MS),
          String(IDLE_MS),
          "wal",
          "0",
          takesOverFrom(i),
        ]),
      );
      // Each step is opened for the four processes at once: all are loaded before any claims, all
      // hold a claim before any finishes, and each has taken its neighbour's job over before any
      // finishes with its old token. The scheduler cannot change that order.
      const steps = ["ready", "claimed", "took"];
      const { seconds } = await runInSteps(children, OWNERS, steps, { barrierMs: BARRIER_MS, exitMs: 60_000 });

      const lines = files.flatMap((file) => readJsonLines<ClaimWorkerLine>(file));
      const claims = lines.filter((l) => l.kind === "claim");
      const finishes = lines.filter((l) => l.kind === "finish");
      const claimsBy = Object.fromEntries(OWNERS.map((owner) => [owner, claims.filter((c) => c.owner === owner).length]));
      const summaries = children.map((c) => /done (\{.*\})/.exec(c.stdout())?.[1] ?? "?");
      console.log(
        `[multi-process:postgres] jobs=${JOBS} claims=${claims.length} finishes=${finishes.length} ` +
          `refused=${finishes.filter((f) => !f.accepted).length} maxToken=${Math.max(...claims.map((c) => c.token))} ` +
          `claimsBy=${JSON.stringify(claimsBy)} seconds=${seconds.toFixed(2)}\n  ${summaries.join("\n  ")}`,
      );

      const tokensByJob = expectFencedTokens(claims);
      expect(tokensByJob.size).toBe(JOBS + OWNERS.length);
      expectHandovers(claims, finishes, OWNERS);

      const store: VerqStore = await database.open();
      try {
        const check = new JobQueue(store);
        const logged = await expectLoggedClaims(store, claims);

        // Every job is done once: done, with the last token handed out, one completion in its log,
        // and exactly one accepted ok, made with that token.
        const completions = new Map<string, number>();
        for (const e of logged)
          if (e.type === "job.completed") completions.set(e.streamId, (completions.get(e.streamId) ?? 0) + 1);
        for (const [id, tokens] of tokensByJob) {
          const job = await check.get(id);
          expect(job?.state, id).toBe("done");
          expect(job?.token, id).toBe(Math.max(...tokens));
          expect(completions.get(id), id).toBe(1);
          const oks = finishes.filter((f) => f.id === id && f.outcome === "ok" && f.accepted).map((f) => f.token);
          expect(oks, id).toEqual([job?.token]);
        }
        const stats = await check.stats();
        expect(stats.byState.done).toBe(JOBS + OWNERS.length);
        expect(stats.leaseExpiries).toBeGreaterThanOrEqual(OWNERS.length);
        expect(stats.staleFinishesRefused).toBe(finishes.filter((f) => !f.accepted).length);

        // The log four processes interleaved folds back to the same projections.
        const live = await projectionRows(store);
        await store.rebuildProjections();
        expect(await projectionRows(store)).toEqual(live);
      } finally {
        await store.close();
      }
    }, 180_000);
  },
);
