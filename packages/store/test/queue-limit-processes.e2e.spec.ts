import { JobQueue } from "@verq/store";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { LimitedWorkerLine } from "./helpers/limited-claim-worker.ts";
import { expectFencedTokens, expectLoggedClaims } from "./helpers/claim-run-checks.ts";
import { readJsonLines } from "./helpers/read-jsonl.ts";
import { runInSteps } from "./helpers/run-in-steps.ts";
import { helperScript, runTsChild } from "./helpers/run-ts-child.ts";
import { makeTempDir, type TempDir } from "./helpers/temp-dir.ts";

const LIMITED = 60;
const OTHER = 40;
const LIMIT = 3;
const OWNERS = ["worker-a", "worker-b"] as const;
/** What each process claims of the limited queue before either finishes: together, the limit. */
const SHARES = [2, 1] as const;
// Each process asks for more than the limit at once: only the limit keeps them under it.
const BATCH = 4;
const HOLD_MS = 6;
const IDLE_MS = 600;
// Generous: loading processes on two cores shared with other work can take many seconds.
const BARRIER_MS = 60_000;

let database: TestDatabase | undefined;
let tmp: TempDir | undefined;
afterEach(async () => {
  tmp?.remove();
  tmp = undefined;
  await database?.dispose();
  database = undefined;
});

/**
 * The leased count of each queue after every event of the log, in log order: +1 for a claim of a
 * job that was not leased, -1 for an event that ends a lease. Returns the highest per queue.
 */
function mostLeased(
  events: readonly { streamId: string; type: string }[],
  queueOf: ReadonlyMap<string, string>,
): Map<string, number> {
  const leased = new Set<string>();
  const now = new Map<string, number>();
  const most = new Map<string, number>();
  for (const { streamId, type } of events) {
    const queue = queueOf.get(streamId) ?? "?";
    if (type === "job.claimed" && !leased.has(streamId)) {
      leased.add(streamId);
      now.set(queue, (now.get(queue) ?? 0) + 1);
      most.set(queue, Math.max(most.get(queue) ?? 0, now.get(queue) ?? 0));
    } else if (
      ["job.completed", "job.retryScheduled", "job.died", "job.leaseExpired"].includes(type) &&
      leased.delete(streamId)
    ) {
      now.set(queue, (now.get(queue) ?? 0) - 1);
    }
  }
  return most;
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`queue limit across processes [${engine}]`, () => {
    it(`two OS processes claiming from a queue limited to ${LIMIT} never hold more than ${LIMIT} of its jobs at once, and are refused while both hold it full`, async () => {
      expect(
        SHARES.reduce((a, b) => a + b, 0),
        "the shares fill the limit",
      ).toBe(LIMIT);
      database = await createTestDatabase(engine);
      tmp = makeTempDir("queue-limit-processes");
      const setup = await database.open();
      try {
        const queue = new JobQueue(setup);
        await queue.enqueueMany(
          Array.from({ length: LIMITED }, (_, i) => ({ id: `l-${String(i).padStart(3, "0")}`, payload: i, queue: "limited" })),
        );
        await queue.enqueueMany(
          Array.from({ length: OTHER }, (_, i) => ({ id: `o-${String(i).padStart(3, "0")}`, payload: i, queue: "other" })),
        );
        await queue.setQueueLimit("limited", { maxLeased: LIMIT });
      } finally {
        await setup.close();
      }

      const files = OWNERS.map((owner) => tmp!.file(`${owner}.jsonl`));
      const children = OWNERS.map((owner, i) =>
        runTsChild(helperScript("limited-claim-worker.ts"), [
          database!.db,
          owner,
          files[i]!,
          "limited",
          "other",
          String(SHARES[i]),
          String(BATCH),
          String(HOLD_MS),
          String(IDLE_MS),
        ]),
      );
      // Each step is opened for both processes at once, so the scheduler cannot change this order:
      // both are loaded before either claims; both hold their share of the limited queue (the
      // limit, reached across two processes) before either asks again; both have asked again,
      // while it is full, before either finishes. Then they compete freely until the work is done.
      const steps = ["ready", "holding", "refused"];
      const { seconds, diagnostics } = await runInSteps(children, OWNERS, steps, { barrierMs: BARRIER_MS, exitMs: 90_000 });

      const linesBy = files.map((file) => readJsonLines<LimitedWorkerLine>(file));
      const lines = linesBy.flat();
      const claims = lines.filter((l) => l.kind === "claim");
      const finishes = lines.filter((l) => l.kind === "finish");
      // Each summary agrees with what its process recorded.
      children.forEach((c, i) => {
        const summary = /^done (\{.*\})$/m.exec(c.stdout())!;
        const counts = JSON.parse(summary[1]!) as { claimed: number; finished: number; refused: number };
        const own = linesBy[i]!;
        expect(counts, OWNERS[i]).toMatchObject({
          claimed: own.filter((l) => l.kind === "claim").length,
          finished: own.filter((l) => l.kind === "finish" && l.accepted).length,
          refused: own.filter((l) => l.kind === "finish" && !l.accepted).length,
        });
      });

      // The arranged steps: each process got its whole share of the limited queue, and while
      // the two together held it full, a claim of more than the limit got none of its jobs (and
      // as many of the unlimited queue's as it asked for).
      OWNERS.forEach((owner, i) => {
        const of = (step: string) => claims.filter((c) => c.owner === owner && c.step === step).map((c) => c.queue);
        expect(of("share"), `${owner} share`).toEqual(Array.from({ length: SHARES[i]! }, () => "limited"));
        expect(of("probe"), `${owner} claim while full`).toEqual(Array.from({ length: BATCH }, () => "other"));
      });

      // Leases cannot run out and every finish is ok, so each job was handed out once, with
      // token 1 (no (job, token) pair twice), and each holder's finish was accepted.
      expectFencedTokens(claims);
      const pairs = claims.map((c) => `${c.id}#${c.token}`);
      expect(claims.map((c) => c.id).sort(), "each job handed out once").toEqual([...new Set(claims.map((c) => c.id))].sort());
      expect(claims.filter((c) => c.token !== 1)).toEqual([]);
      expect(claims).toHaveLength(LIMITED + OTHER);
      expect(finishes.filter((f) => !f.accepted)).toEqual([]);
      expect(finishes.map((f) => `${f.id}#${f.token}`).sort()).toEqual([...pairs].sort());

      const store = await database.open();
      try {
        const jobs = await store.db.selectFrom("jobs").select(["id", "queue", "state"]).execute();
        expect(jobs.filter((j) => j.state !== "done")).toEqual([]);
        expect(jobs).toHaveLength(LIMITED + OTHER);
        // The log agrees with what the processes recorded: the same claims (job, token, owner),
        // and one completion per job, exactly for the finishes the processes saw accepted.
        const events = await expectLoggedClaims(store, claims);
        const completed = events.filter((e) => e.type === "job.completed").map((e) => e.streamId);
        expect(completed.sort(), "every job done exactly once").toEqual(jobs.map((j) => j.id).sort());
        expect(events.filter((e) => !["job.enqueued", "job.claimed", "job.completed"].includes(e.type))).toEqual([]);

        // Q1: in the log's order, the limited queue never had more than its limit leased, and
        // reached it (the shares above fill it across both processes).
        const most = mostLeased(events, new Map(jobs.map((j) => [j.id, j.queue])));
        const claimsBy = Object.fromEntries(
          OWNERS.map((owner) => [owner, claims.filter((c) => c.owner === owner && c.queue === "limited").length]),
        );
        console.log(
          `[queue-limit:${engine}] most leased ${JSON.stringify(Object.fromEntries(most))} limited claims by ${JSON.stringify(claimsBy)} ` +
            `seconds=${seconds.toFixed(2)} (${diagnostics.replace(/\n/g, "; ")})`,
        );
        expect(most.get("limited"), "most leased of the limited queue at once").toBe(LIMIT);
      } finally {
        await store.close();
      }
    }, 180_000);
  });
}
