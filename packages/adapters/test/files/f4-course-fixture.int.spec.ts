import { readFileSync } from "node:fs";
import { join } from "node:path";
import { COURSE_EXPECTED, COURSE_FIXTURE, ENGINES, engineAvailable } from "@verq/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  digests,
  makeQueue,
  names,
  outcome,
  verq,
  withLedger,
  writeCourseFixture,
  type TestQueue,
} from "./helpers/queue-fixture.ts";

let q: TestQueue;

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    beforeEach(async () => {
      q = await makeQueue(engine, "f4");
      writeCourseFixture(q);
    });
    afterEach(() => q.remove());

    describe("the course's 20-file situation", () => {
      it("F4: 20 files → 18 done, 2 error, 15 processed rows, duplicates M004 M009 M013 ascending; processing/ empty", async () => {
        expect(names(q.dirs.inbox)).toHaveLength(20);
        const run = await verq("files", "consume", q.root, "--db", q.db);
        expect(run).toEqual({ code: 0, out: "done=18 error=2 duplicates=3 recovered=0\n", err: "" });
        const result = await outcome(q);
        expect(result).toMatchObject({ inbox: 0, processing: 0, done: 18, error: 2, processed: 15, duplicateFiles: 3 });
        expect(result.duplicates).toEqual(["M004", "M009", "M013"]);
        expect(result.maxClaimsPerStream).toBe(1);

        const dups = await verq("files", "dups", "--db", q.db);
        expect(dups).toEqual({ code: 0, out: "M004\nM009\nM013\n", err: "" });
        expect(COURSE_EXPECTED.duplicates).toEqual(["M004", "M009", "M013"]);
      });

      it("F5: errors prints file,reason with one parse and one missing-field", async () => {
        await verq("files", "consume", q.root, "--db", q.db);
        const errors = await verq("files", "errors", q.root, "--db", q.db);
        expect(errors).toEqual({ code: 0, out: "file,reason\nmsg-010.json,parse\nmsg-015.json,missing-field\n", err: "" });
        const detailed = JSON.parse((await verq("files", "errors", q.root, "--db", q.db, "--json")).out) as unknown;
        expect(detailed).toEqual([
          { file: "msg-010.json", reason: "parse", detail: expect.stringMatching(/^not valid JSON/) as unknown },
          { file: "msg-015.json", reason: "missing-field", detail: "missing: amount" },
        ]);
      });

      it("F3: the processed table holds the course's columns, one row per msg_id, and files arrive unchanged", async () => {
        const before = digests(q.dirs.inbox);
        await verq("files", "consume", q.root, "--db", q.db);
        const after = new Map([...digests(q.dirs.done), ...digests(q.dirs.error)]);
        expect(after).toEqual(before);
        await withLedger(q.db, async (ledger) => {
          const rows = await ledger.processed();
          expect(rows.map((r) => r.msg_id)).toEqual(Array.from({ length: 15 }, (_, i) => `M${String(i + 1).padStart(3, "0")}`));
          expect(rows[0]).toMatchObject({ msg_id: "M001", order_no: "O-1001", seq: 1, amount: 1200, file: "msg-001.json" });
          expect(typeof rows[0]?.processed_at).toBe("number");
          // The duplicate is the later file of the two; the first one is the row.
          expect(rows.find((r) => r.msg_id === "M004")?.file).toBe("msg-004.json");
          expect((await ledger.duplicates()).map((d) => [d.key, d.file])).toEqual([
            ["M004", "msg-006.json"],
            ["M009", "msg-013.json"],
            ["M013", "msg-019.json"],
          ]);
        });
      });

      it("F6: order-check prints OK on the fixture, by stored seq", async () => {
        await verq("files", "consume", q.root, "--db", q.db);
        expect(await verq("files", "order-check", "--db", q.db)).toEqual({ code: 0, out: "OK\n", err: "" });
      });

      it("F7: lag after the run is inbox=0 processing=0 error=2", async () => {
        await verq("files", "consume", q.root, "--db", q.db);
        expect(await verq("files", "lag", q.root, "0")).toEqual({ code: 0, out: "inbox=0 processing=0 error=2\n", err: "" });
      });

      it("F9: schema lists every field of the valid messages with the idempotency-key and sequence roles", async () => {
        const expected =
          "field,type,role\nmsg_id,string,idempotency-key\norder_no,string,\nseq,integer,sequence\namount,integer,\ncurrency,string,\nsent_at,string,\n";
        expect(await verq("files", "schema", q.root)).toEqual({ code: 0, out: expected, err: "" });
        // The same after the run, now from done/ (the two files in error/ are left out).
        await verq("files", "consume", q.root, "--db", q.db);
        expect((await verq("files", "schema", q.root)).out).toBe(expected);
      });

      it("F3: a second consume of the same files (copied in again) records nothing new and quarantines nothing twice", async () => {
        await verq("files", "consume", q.root, "--db", q.db);
        q.write(COURSE_FIXTURE.map((f) => ({ name: `again-${f.name}`, text: f.text })));
        expect((await verq("files", "consume", q.root, "--db", q.db)).out).toBe("done=18 error=2 duplicates=18 recovered=0\n");
        const result = await outcome(q);
        expect(result).toMatchObject({ done: 36, error: 4, processed: 15, duplicateFiles: 21 });
        expect(readFileSync(join(q.dirs.done, "again-msg-001.json"), "utf8")).toBe(COURSE_FIXTURE[0]?.text);
      });

      it("F3: the message streams are the source of truth: every move is an event, and a rebuild gives the same tables", async () => {
        await verq("files", "consume", q.root, "--db", q.db);
        await withLedger(q.db, async (ledger, store) => {
          const types = await store.db
            .selectFrom("events")
            .select(["type", (eb) => eb.fn.countAll<number>().as("n")])
            .where("stream_type", "=", "message")
            .groupBy("type")
            .orderBy("type")
            .execute();
          expect(types.map((t) => [t.type, Number(t.n)])).toEqual([
            ["message.claimed", 20],
            ["message.duplicated", 3],
            ["message.recorded", 15],
            ["message.rejected", 2],
          ]);
          const snapshot = async () => ({
            processed: await ledger.processed(),
            duplicates: await ledger.duplicates(),
            messages: await store.db
              .selectFrom("messages" as never)
              .selectAll()
              .orderBy("id" as never)
              .execute(),
          });
          const live = await snapshot();
          expect(await ledger.rebuild()).toEqual({ messages: 20, events: 40 });
          expect(await snapshot()).toEqual(live);
        });
      });
    });
  });
}
