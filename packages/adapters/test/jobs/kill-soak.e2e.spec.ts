import { createTestDatabase, ENGINES, engineAvailable, type TestDatabase } from "@verq/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runJobsKillSoak } from "../../../../stress/jobs-kill-soak.ts";

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    let database: TestDatabase;
    beforeEach(async () => {
      database = await createTestDatabase(engine, "queue.sqlite");
    });
    afterEach(async () => {
      await database.dispose();
    });

    it("J3/J4/J8 kill soak: workers SIGKILLed at random, then a drain; every job done once, no token reused, no stale finish accepted", async () => {
      const report = await runJobsKillSoak({
        db: database.db,
        jobs: 600,
        workers: 3,
        kills: 5,
        leaseMs: 300,
        killEveryMs: 150,
      });
      console.log(`[soak:jobs:${engine}] ${JSON.stringify(report)}`);
      expect(report.engine).toBe(engine);
      expect(report.kills).toBeGreaterThanOrEqual(3);
      expect(report.done + report.dead).toBe(600);
      expect(report.deadWithoutReason).toBe(0);
      expect(report.receiverEffects).toBe(report.done);
      expect(report.duplicateClaims).toBe(0);
      expect(report.acceptedStaleFinishes).toBe(0);
      // The soak ends with `verq check` of the queue's store, as a child process: nothing found.
      expect(report.storeCheck).toMatchObject({ exitCode: 0, ok: true, findings: [], findingCount: 0 });
      expect(report.storeCheck.streams).toBe(600);
    }, 120_000);
  });
}

it("the soak's audit catches a token handed out twice and a stale outcome", async () => {
  const { auditJobStream } = await import("../../../../stress/jobs-kill-soak.ts");
  const e = (version: number, type: string, token?: number) => ({
    position: version,
    streamType: "job",
    streamId: "x",
    version,
    type,
    data: { token, at: 0 },
    at: 0,
    schemaVersion: 1,
  });
  expect(
    auditJobStream([e(1, "job.enqueued"), e(2, "job.claimed", 1), e(3, "job.claimed", 2), e(4, "job.completed", 2)]),
  ).toEqual({ duplicateClaims: 0, acceptedStaleFinishes: 0 });
  expect(auditJobStream([e(1, "job.enqueued"), e(2, "job.claimed", 1), e(3, "job.claimed", 1)]).duplicateClaims).toBe(1);
  expect(
    auditJobStream([e(1, "job.enqueued"), e(2, "job.claimed", 1), e(3, "job.claimed", 2), e(4, "job.completed", 1)])
      .acceptedStaleFinishes,
  ).toBe(1);
});
