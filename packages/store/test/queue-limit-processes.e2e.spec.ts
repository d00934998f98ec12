import { JOB_STREAM } from "@verq/core";
import { JobQueue, readAllEvents } from "@verq/store";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";
import { helperScript, runTsChild } from "./helpers/run-ts-child.ts";

const LIMITED = 60;
const OTHER = 40;
const LIMIT = 3;
const OWNERS = ["worker-a", "worker-b"] as const;

let database: TestDatabase | undefined;
afterEach(async () => {
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
    it(`two OS processes claiming from a queue limited to ${LIMIT} never hold more than ${LIMIT} of its jobs at once`, async () => {
      database = await createTestDatabase(engine);
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

      // Each process asks for more than the limit at once: only the limit keeps them under it.
      const children = OWNERS.map((owner) =>
        runTsChild(helperScript("limited-claim-worker.ts"), [database!.db, owner, "limited,other", "4", "6", "600"]),
      );
      await Promise.all(children.map((c) => c.waitForLine((l) => l === "ready", 30_000)));
      for (const c of children) c.process.stdin.end("go\n");
      const codes = await Promise.all(children.map((c) => c.exited(90_000)));
      const diagnostics = children.map((c, i) => `${OWNERS[i]}: ${c.stdout().trim()} ${c.stderr().trim()}`).join("\n");
      expect(codes, diagnostics).toEqual([0, 0]);

      const store = await database.open();
      try {
        const jobs = await store.db.selectFrom("jobs").select(["id", "queue", "state"]).execute();
        expect(jobs.filter((j) => j.state === "done")).toHaveLength(LIMITED + OTHER);
        const events = await readAllEvents(store.db, JOB_STREAM);
        const most = mostLeased(events, new Map(jobs.map((j) => [j.id, j.queue])));
        const limitedOwners = new Set(
          events
            .filter((e) => e.type === "job.claimed" && e.streamId.startsWith("l-"))
            .map((e) => (e.data as { owner: string }).owner),
        );
        console.log(
          `[queue-limit:${engine}] most leased ${JSON.stringify(Object.fromEntries(most))} (${diagnostics.replace(/\n/g, "; ")})`,
        );
        expect(most.get("limited")).toBe(LIMIT);
        // Both processes claimed from the limited queue, so the limit held between them, not only within one.
        expect([...limitedOwners].sort(), diagnostics).toEqual([...OWNERS]);
      } finally {
        await store.close();
      }
    }, 120_000);
  });
}
