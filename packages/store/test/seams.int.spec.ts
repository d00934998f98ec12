import { decideGuid, decideJob, decideMessage, type GuidDecider, type JobDecider, type MessageDecider } from "@verq/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileLedger, GuidLedger, JobQueue, type VerqStore } from "../src/index.ts";
import { commitGuidCreations, withGuidSeams, withJobDecider, withMessageDecider, type GuidClaimer } from "../src/internal.ts";
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

    describe("test seams: only through @verq/store/internal", () => {
      it("the public option types name no decider and no claimer", () => {
        const decider: JobDecider = decideJob;
        // @ts-expect-error JobQueueOptions has no decider.
        expect(() => new JobQueue(store, { decider })).not.toThrow();
        // @ts-expect-error GuidLedgerOptions has no claimer.
        expect(() => new GuidLedger(store, { claimer: null })).not.toThrow();
        // @ts-expect-error FileLedgerOptions has no decider.
        expect(() => new FileLedger(store, { decider: null })).not.toThrow();
      });

      it("withJobDecider: the queue decides with the decider given, and the options it was given are left alone", async () => {
        const commands: string[] = [];
        const decider: JobDecider = (job, command) => (commands.push(command.type), decideJob(job, command));
        const options = { defaultLeaseMs: 1_000 };
        const queue = new JobQueue(store, withJobDecider(options, decider));
        await queue.enqueue({ id: "a", payload: 1 });
        await queue.claim("w");
        expect(commands).toContain("job.claim");
        expect(Object.getOwnPropertySymbols(options)).toEqual([]);
      });

      it("withGuidSeams: the ledger claims with the claimer and decides with the decider given", async () => {
        const used: string[] = [];
        const claimer: GuidClaimer = (s, creations) => {
          used.push(`claim ${creations.map((c) => c.after.guid).join(" ")}`);
          return s.transaction((trx) => commitGuidCreations(trx, s.dialect, creations));
        };
        const decider: GuidDecider = (entry, command) => (used.push(`decide ${command.type}`), decideGuid(entry, command));
        const ledger = new GuidLedger(store, withGuidSeams({}, { claimer, decider }));
        const input = { guid: "G-1", request: "{}", fingerprint: "f", maxAttempts: 3 };
        expect(await ledger.receive(input)).toMatchObject({ kind: "claimed" });
        expect(await ledger.receive(input)).toMatchObject({ kind: "repeat" });
        // The creation is decided first and then claimed; a repeat is decided against the entry as read, and claims nothing.
        expect(used).toEqual(["decide guid.receive", "claim G-1", "decide guid.receive", "decide guid.repeat"]);
      });

      it("withMessageDecider: the file ledger decides with the decider given", async () => {
        let calls = 0;
        const decider: MessageDecider = (message, ...commands) => (calls++, decideMessage(message, ...commands));
        const ledger = new FileLedger(store, withMessageDecider({}, decider));
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
