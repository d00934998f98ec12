import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ENGINES, engineAvailable } from "@verq/testing";
import { runVerq } from "./helpers/cli-child.ts";
import { makeQueue, names, treeSnapshot, verq, withLedger, type TestQueue } from "./helpers/queue-fixture.ts";

let q: TestQueue;

const msg = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ msg_id: id, order_no: "O-1", seq: 1, amount: 5, ...extra });

describe("F7 lag", () => {
  // lag takes no --db: the queue's database is never opened.
  beforeEach(async () => {
    q = await makeQueue("sqlite", "lag");
  });
  afterEach(() => q.remove());

  it("F7: at threshold n-1 it exits 1, at n and n+1 it exits 0; the one line counts inbox, processing and error", async () => {
    q.write(Array.from({ length: 7 }, (_, i) => ({ name: `m${i}.json`, text: msg(`L${i}`) })));
    q.write([{ name: "ignored.txt", text: "not a message" }]);
    writeFileSync(join(q.dirs.processing, "stuck.json"), msg("P"));
    writeFileSync(join(q.dirs.error, "bad.json"), "{");
    writeFileSync(join(q.dirs.error, "bad2.json"), "{");
    const line = "inbox=7 processing=1 error=2\n";
    expect(await verq("files", "lag", q.root, "6")).toEqual({ code: 1, out: line, err: "" });
    expect(await verq("files", "lag", q.root, "7")).toEqual({ code: 0, out: line, err: "" });
    expect(await verq("files", "lag", q.root, "8")).toEqual({ code: 0, out: line, err: "" });
    expect(JSON.parse((await verq("files", "lag", q.root, "6", "--json")).out)).toEqual({
      inbox: 7,
      processing: 1,
      error: 2,
      threshold: 6,
      over: true,
    });
  });

  it("F7: an empty inbox at threshold 0 is fine; usage errors exit 2 and print no counts", async () => {
    expect(await verq("files", "lag", q.root, "0")).toEqual({ code: 0, out: "inbox=0 processing=0 error=0\n", err: "" });
    for (const bad of ["-1", "1.5", "ten", ""]) {
      const r = await verq("files", "lag", q.root, bad);
      expect(r.code, bad).toBe(2);
      expect(r.out).toBe("");
    }
    expect((await verq("files", "lag", q.root)).code).toBe(2); // THRESHOLD missing
    expect((await verq("files", "lag", join(q.dir, "no-such-queue"), "5")).code).toBe(2);
  });

  it("F7: the real CLI process exits with those codes (for cron and monitors)", async () => {
    q.write([
      { name: "a.json", text: msg("A") },
      { name: "b.json", text: msg("B") },
    ]);
    const [over, at, usage] = await Promise.all([
      runVerq(["files", "lag", q.root, "1"]),
      runVerq(["files", "lag", q.root, "2"]),
      runVerq(["files", "lag", q.root, "x"]),
    ]);
    expect([over.status, over.stdout]).toEqual([1, "inbox=2 processing=0 error=0\n"]);
    expect([at.status, at.stdout]).toEqual([0, "inbox=2 processing=0 error=0\n"]);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain("VERQ_INVALID_ARGUMENT");
  });
});

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    beforeEach(async () => {
      q = await makeQueue(engine, "replay");
    });
    afterEach(() => q.remove());

    describe("F8 replay", () => {
      async function quarantine(): Promise<void> {
        q.write([
          { name: "no-amount.json", text: JSON.stringify({ msg_id: "R1", order_no: "O-1", seq: 1 }) },
          { name: "fine.json", text: msg("R0", { order_no: "O-0" }) },
        ]);
        await verq("files", "consume", q.root, "--db", q.db);
        expect(names(q.dirs.error)).toEqual(["no-amount.json"]);
      }

      it("F8: a missing file, ../x, a nested path, . and .. exit non-zero and change nothing at all", async () => {
        await quarantine();
        writeFileSync(join(q.dir, "x"), msg("OUTSIDE"));
        const before = treeSnapshot(q.dirs);
        const cases: [string, number][] = [
          ["missing.json", 4],
          ["fine.json", 4], // in done/, not in error/
          ["../x", 2],
          ["../error/no-amount.json", 2],
          ["sub/no-amount.json", 2],
          ["..\\x", 2],
          ["..", 2],
          [".", 2],
          // The longest name a folder holds is only missing; a longer one is bad input.
          [`${"m".repeat(250)}.json`, 4],
          [`${"m".repeat(251)}.json`, 2],
          [`${"é".repeat(126)}.json`, 2],
        ];
        for (const [file, code] of cases) {
          const r = await verq("files", "replay", q.root, file, "--db", q.db);
          expect([file, r.code, r.out]).toEqual([file, code, ""]);
          expect(r.err).toMatch(/^verq: VERQ_(FILE_NOT_FOUND|INVALID_ARGUMENT): /);
        }
        expect(treeSnapshot(q.dirs)).toEqual(before);
        expect(readFileSync(join(q.dir, "x"), "utf8")).toBe(msg("OUTSIDE"));
        await withLedger(q.db, async (_ledger, store) => {
          const replays = await store.db.selectFrom("events").select("type").where("type", "=", "message.replayed").execute();
          expect(replays).toEqual([]);
        });
      });

      it("F8: a replay onto a name the inbox already holds is refused (exit 3) and changes nothing", async () => {
        await quarantine();
        q.write([{ name: "no-amount.json", text: msg("NEW") }]);
        const before = treeSnapshot(q.dirs);
        const r = await verq("files", "replay", q.root, "no-amount.json");
        expect(r.code).toBe(3);
        expect(r.err).toContain("VERQ_FILE_EXISTS");
        expect(treeSnapshot(q.dirs)).toEqual(before);
      });

      it("F5/F8: a business error completed in error/ and replayed goes error → inbox → processing → done, one stream, every move an event", async () => {
        await quarantine();
        writeFileSync(
          join(q.dirs.error, "no-amount.json"),
          JSON.stringify({ msg_id: "R1", order_no: "O-1", seq: 1, amount: 40 }),
        );
        expect(await verq("files", "replay", q.root, "no-amount.json", "--db", q.db)).toEqual({
          code: 0,
          out: "replayed no-amount.json: error/ -> inbox/\n",
          err: "",
        });
        expect(names(q.dirs.error)).toEqual([]);
        expect(names(q.dirs.inbox)).toEqual(["no-amount.json"]);
        expect((await verq("files", "lag", q.root, "0")).out).toBe("inbox=1 processing=0 error=0\n");
        expect((await verq("files", "consume", q.root, "--db", q.db)).out).toBe("done=1 error=0 duplicates=0 recovered=0\n");
        await withLedger(q.db, async (ledger) => {
          const row = (await ledger.processed()).find((r) => r.msg_id === "R1");
          expect(row).toMatchObject({ amount: 40, file: "no-amount.json" });
          const history = await ledger.history(row!.message_id);
          expect(history.map((e) => e.type)).toEqual([
            "message.claimed",
            "message.rejected",
            "message.replayed",
            "message.claimed",
            "message.recorded",
          ]);
          expect(history[2]?.data).toMatchObject({ by: "command", file: "no-amount.json" });
        });
      });

      it("F8: a replay without --db (or a file moved back by hand) is recorded by the consumer as observed", async () => {
        await quarantine();
        expect((await verq("files", "replay", q.root, "no-amount.json")).code).toBe(0);
        // Still missing its amount: back to error/, on the same stream, with the replay recorded.
        expect((await verq("files", "consume", q.root, "--db", q.db)).out).toBe("done=0 error=1 duplicates=0 recovered=0\n");
        expect((await verq("files", "errors", q.root, "--db", q.db)).out).toBe("file,reason\nno-amount.json,missing-field\n");
        await withLedger(q.db, async (ledger, store) => {
          const streams = await store.db
            .selectFrom("events")
            .select("stream_id")
            .distinct()
            .where("stream_type", "=", "message")
            .execute();
          expect(streams).toHaveLength(2);
          const id = (await ledger.errorsFor(["no-amount.json"])).get("no-amount.json")!.id;
          const history = await ledger.history(id);
          expect(history.map((e) => e.type)).toEqual([
            "message.claimed",
            "message.rejected",
            "message.replayed",
            "message.claimed",
            "message.rejected",
          ]);
          expect(history[2]?.data).toMatchObject({ by: "observed" });
        });
      });
    });
  });
}
