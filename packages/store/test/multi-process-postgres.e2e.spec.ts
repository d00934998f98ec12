import { JOB_STREAM } from "@verq/core";
import { JobQueue, type VerqStore } from "@verq/store";
import { createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { readJsonLines } from "./helpers/read-jsonl.ts";
import { helperScript, runTsChild } from "./helpers/run-ts-child.ts";
import { projectionRows } from "./helpers/snapshot.ts";
import { openBarrier } from "./helpers/stdin-barrier.ts";
import { makeTempDir, type TempDir } from "./helpers/temp-dir.ts";

/** What `claim-worker.ts` writes per claim and per finish. */
type WorkerLine =
  | { kind: "claim"; id: string; token: number; owner: string }
  | { kind: "finish"; id: string; token: number; outcome: "ok" | "retry" | "permanent"; accepted: boolean };

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
      await openBarrier(children, "ready", { timeoutMs: BARRIER_MS });
      const started = Date.now();
      await openBarrier(children, "claimed", { timeoutMs: BARRIER_MS });
      await openBarrier(children, "took", { timeoutMs: BARRIER_MS, last: true });
      const codes = await Promise.all(children.map((c) => c.exited(60_000)));
      const seconds = (Date.now() - started) / 1000;
      const diagnostics = children.map((c, i) => `${OWNERS[i]}: ${c.stdout().trim()} ${c.stderr().trim()}`).join("\n");
      // Every process finished cleanly: exit 0 after its summary line.
      expect(codes, diagnostics).toEqual([0, 0, 0, 0]);
      for (const c of children) expect(c.stdout(), diagnostics).toMatch(/^done \{.*\}$/m);

      const lines = files.flatMap((file) => readJsonLines<WorkerLine>(file));
      const claims = lines.filter((l) => l.kind === "claim");
      const finishes = lines.filter((l) => l.kind === "finish");
      const claimsBy = Object.fromEntries(OWNERS.map((owner) => [owner, claims.filter((c) => c.owner === owner).length]));
      const summaries = children.map((c) => /done (\{.*\})/.exec(c.stdout())?.[1] ?? "?");
      console.log(
        `[multi-process:postgres] jobs=${JOBS} claims=${claims.length} finishes=${finishes.length} ` +
          `refused=${finishes.filter((f) => !f.accepted).length} maxToken=${Math.max(...claims.map((c) => c.token))} ` +
          `claimsBy=${JSON.stringify(claimsBy)} seconds=${seconds.toFixed(2)}\n  ${summaries.join("\n  ")}`,
      );

      // No (job, token) pair was handed out twice, across the four processes.
      const pairs = claims.map((c) => `${c.id}#${c.token}`);
      expect(new Set(pairs).size).toBe(pairs.length);

      // Per job, the tokens handed out are exactly 1..max: each claim added exactly 1.
      const tokensByJob = new Map<string, number[]>();
      for (const c of claims) tokensByJob.set(c.id, [...(tokensByJob.get(c.id) ?? []), c.token]);
      expect(tokensByJob.size).toBe(JOBS + OWNERS.length);
      for (const [id, tokens] of tokensByJob) {
        const sorted = [...tokens].sort((a, b) => a - b);
        expect(sorted, id).toEqual(sorted.map((_, i) => i + 1));
      }

      // The handover: each job went from its holder (token 1) to another process (token 2),
      // whose finish was accepted, while the holder's finish with the old token was refused.
      OWNERS.forEach((owner, i) => {
        const taker = OWNERS[(i + OWNERS.length - 1) % OWNERS.length]!;
        const id = `handover-${owner}`;
        expect(
          claims
            .filter((c) => c.id === id)
            .map((c) => `${c.token}@${c.owner}`)
            .sort(),
          id,
        ).toEqual([`1@${owner}`, `2@${taker}`]);
        expect(
          finishes
            .filter((f) => f.id === id)
            .map((f) => `${f.token}:${f.accepted}`)
            .sort(),
          id,
        ).toEqual(["1:false", "2:true"]);
      });

      const store: VerqStore = await database.open();
      try {
        const check = new JobQueue(store);
        // Every claim the log records was handed to exactly one process, and vice versa.
        const logged = await sql<{ stream_id: string; type: string; data: string }>`select stream_id, type, data from events
          where stream_type = ${JOB_STREAM} order by position`.execute(store.db);
        const loggedClaims = logged.rows
          .filter((r) => r.type === "job.claimed")
          .map((r) => {
            const data = JSON.parse(r.data) as { token: number; owner: string };
            return `${r.stream_id}#${data.token}@${data.owner}`;
          });
        expect(loggedClaims.sort()).toEqual(claims.map((c) => `${c.id}#${c.token}@${c.owner}`).sort());

        // Every job is done once: done, with the last token handed out, one completion in its log,
        // and exactly one accepted ok, made with that token.
        const completions = new Map<string, number>();
        for (const r of logged.rows)
          if (r.type === "job.completed") completions.set(r.stream_id, (completions.get(r.stream_id) ?? 0) + 1);
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
