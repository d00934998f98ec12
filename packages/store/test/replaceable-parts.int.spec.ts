import {
  ManualClock,
  decideGuid,
  decideJob,
  decideMessage,
  decideSchedule,
  type GuidDecider,
  type JobDecider,
  type MessageDecider,
  type ScheduleDecider,
} from "@verq/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  FileLedger,
  GuidLedger,
  JobQueue,
  Schedules,
  type ClaimCandidates,
  type GuidClaimer,
  type VerqStore,
} from "../src/index.ts";
import { commitGuidCreations, selectClaimCandidates } from "../src/internal.ts";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    let database: TestDatabase;
    let store: VerqStore;
    beforeEach(async () => {
      database = await createTestDatabase(engine);
      store = await database.open();
    });
    afterEach(async () => {
      await store.close();
      await database.dispose();
    });

    describe("the parts a service takes as options: a decider, a candidate reader, a claimer", () => {
      it("JobQueueOptions.decider: the queue decides every command with the decider given", async () => {
        const commands: string[] = [];
        const decider: JobDecider = (job, command) => (commands.push(command.type), decideJob(job, command));
        const queue = new JobQueue(store, { defaultLeaseMs: 1_000, decider });
        await queue.enqueue({ id: "a", payload: 1 });
        const job = await queue.claim("w");
        expect(job === null ? false : await queue.finish(job.id, job.token, "ok")).toBe(true);
        expect(commands).toEqual(["job.enqueue", "job.claim", "job.finish"]);
      });

      it("JobQueueOptions.claimCandidates: a claim offers the candidates the reader gives, in its order", async () => {
        const reversed: ClaimCandidates = async (...args) => (await selectClaimCandidates(...args)).reverse();
        const queue = new JobQueue(store, { claimCandidates: reversed });
        await queue.enqueueMany([
          { id: "first", payload: 1 },
          { id: "second", payload: 2 },
        ]);
        expect((await queue.claim("w"))?.id).toBe("second");
        expect((await new JobQueue(store).claim("w"))?.id).toBe("first");
      });

      it("SchedulesOptions.decider: the schedules decide with the decider given", async () => {
        const commands: string[] = [];
        const decider: ScheduleDecider = (schedule, ...cs) => (
          commands.push(...cs.map((c) => c.type)),
          decideSchedule(schedule, ...cs)
        );
        const clock = new ManualClock(Date.UTC(2024, 0, 1));
        const schedules = new Schedules(store, new JobQueue(store, { clock }), { clock, decider });
        await schedules.schedule("nightly", { cron: "0 2 * * *" });
        expect(commands).toEqual(["schedule.define"]);
      });

      it("GuidLedgerOptions.claimer and decider: the ledger claims with the claimer and decides with the decider given", async () => {
        const used: string[] = [];
        const claimer: GuidClaimer = (s, creations) => {
          used.push(`claim ${creations.map((c) => c.after.guid).join(" ")}`);
          return s.transaction((trx) => commitGuidCreations(trx, s.dialect, creations));
        };
        const decider: GuidDecider = (entry, command) => (used.push(`decide ${command.type}`), decideGuid(entry, command));
        const ledger = new GuidLedger(store, { claimer, decider });
        const input = { guid: "G-1", request: "{}", fingerprint: "f", maxAttempts: 3 };
        expect(await ledger.receive(input)).toMatchObject({ kind: "claimed" });
        expect(await ledger.receive(input)).toMatchObject({ kind: "repeat" });
        // The creation is decided first and then claimed; a repeat is decided against the entry as read, and claims nothing.
        expect(used).toEqual(["decide guid.receive", "claim G-1", "decide guid.receive", "decide guid.repeat"]);
      });

      it("FileLedgerOptions.decider: the file ledger decides with the decider given", async () => {
        let calls = 0;
        const decider: MessageDecider = (message, ...commands) => (calls++, decideMessage(message, ...commands));
        const ledger = new FileLedger(store, { decider });
        const verdict = {
          kind: "valid",
          key: "K1",
          group: "O-1",
          sequence: 1,
          amount: 1,
          message: "{}",
          file: "a.json",
        } as const;
        const settled = await ledger.settle({
          claimId: "c1",
          owner: "1@host",
          file: "a.json",
          recovered: false,
          errorCopyExists: false,
          verdict,
        });
        expect(settled).toMatchObject({ kind: "recorded" });
        expect(calls).toBeGreaterThan(0);
      });
    });
  });
}
