import { isVerqError } from "@verq/core";
import { ENGINES, engineAvailable } from "@verq/testing";
import { describe, expect, it } from "vitest";
import { GuidLedger, JobQueue, OperatorPages, type JobsPageFilter } from "../src/index.ts";
import { freshStores } from "./helpers/fresh-store.ts";
import { seedJobRows } from "./helpers/seed-job-rows.ts";

/*
 * The paged reads of an operator's listings, on both engines: `JobQueue.page` walks every filter
 * in small pages and sees each matching job once, `OperatorPages.ledger` likewise, and every bad
 * filter, limit or cursor is VERQ_INVALID_ARGUMENT.
 */

const FILTERS: readonly JobsPageFilter[] = [
  {},
  { state: "pending" },
  { state: "leased", queue: "mail" },
  { state: "done", kind: "mail.send" },
  { state: "dead" },
  { reason: "exhausted", queue: "default" },
  { kind: null },
  { idPrefix: "job-1" },
];

const refused = async (read: () => Promise<unknown>): Promise<string> => {
  try {
    await read();
    return "accepted";
  } catch (error) {
    return isVerqError(error) ? error.code : String(error);
  }
};

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] the paged reads of the listings`, () => {
    const stores = freshStores();

    it("JobQueue.page walks each filter in pages of 3 and sees every matching job once", async () => {
      const { store } = await stores.open(engine);
      await seedJobRows(store.db, engine, 400);
      const queue = new JobQueue(store);
      const rows = await store.db.selectFrom("jobs").select(["id", "state", "queue", "kind", "reason"]).execute();
      for (const filter of FILTERS) {
        const expected = rows
          .filter(
            (r) =>
              (filter.state === undefined || r.state === filter.state) &&
              (filter.reason === undefined || r.reason === filter.reason) &&
              (filter.queue === undefined || r.queue === filter.queue) &&
              (filter.kind === undefined || r.kind === filter.kind) &&
              (filter.idPrefix === undefined || r.id.startsWith(filter.idPrefix)),
          )
          .map((r) => r.id)
          .sort();
        const seen: string[] = [];
        let after: string | null = null;
        for (let page = 0; page < 200; page++) {
          const result = await queue.page(filter, after, 3);
          seen.push(...result.jobs.map((job) => job.id));
          if (result.next === null) break;
          expect(result.jobs).toHaveLength(3);
          after = result.next;
        }
        expect(expected.length, JSON.stringify(filter)).toBeGreaterThan(3);
        expect([...seen].sort(), JSON.stringify(filter)).toEqual(expected);
      }
    });

    it("refuses a bad filter, limit or cursor with VERQ_INVALID_ARGUMENT, a cursor of another walk too", async () => {
      const { store } = await stores.open(engine);
      await seedJobRows(store.db, engine, 200);
      const queue = new JobQueue(store);
      const doneCursor = (await queue.page({ state: "done" }, null, 5)).next;
      expect(doneCursor).not.toBeNull();
      const bad: (() => Promise<unknown>)[] = [
        () => queue.page({ state: "lost" as never }, null, 5),
        () => queue.page({ reason: "tired" as never }, null, 5),
        () => queue.page({ state: "done", reason: "exhausted" }, null, 5),
        () => queue.page({ queue: "a\nb" }, null, 5),
        () => queue.page({ kind: "9kind" }, null, 5),
        () => queue.page({ idPrefix: "" }, null, 5),
        () => queue.page({}, null, 0),
        () => queue.page({}, null, 1_001),
        () => queue.page({}, "%%%", 5),
        () => queue.page({ state: "dead" }, doneCursor, 5),
        () => queue.page({}, Buffer.from('["id",1]').toString("base64url"), 5),
        () => new OperatorPages(store).ledger(["LOST" as never], null, 5),
        () => new OperatorPages(store).ledger(undefined, doneCursor, 5),
      ];
      for (const read of bad) expect(await refused(read)).toBe("VERQ_INVALID_ARGUMENT");
    });

    it("OperatorPages.ledger walks the UNKNOWN and FAILED entries oldest change first, each once", async () => {
      const { store } = await stores.open(engine);
      const ledger = new GuidLedger(store);
      for (let i = 0; i < 23; i++) {
        const guid = `G-PAGE-${String(i).padStart(2, "0")}`;
        await ledger.receive({ guid, request: "{}", fingerprint: `f-${guid}`, maxAttempts: 3 });
        await ledger.send(guid);
        await ledger.record(guid, 1, i % 3 === 0 ? { kind: "not-sent" } : { kind: "no-answer" });
      }
      const pages = new OperatorPages(store);
      const seen: string[] = [];
      for (let after: string | null = null, i = 0; i < 20; i++) {
        const page = await pages.ledger(undefined, after, 5);
        seen.push(...page.entries.map((entry) => entry.guid));
        if (page.next === null) break;
        after = page.next;
      }
      expect(seen).toEqual((await ledger.list(["UNKNOWN", "FAILED"], 100)).map((entry) => entry.guid));
      expect(seen).toHaveLength(23);
    });
  });
}
