import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ENGINES, engineAvailable, tempDir } from "@verq/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { initQueue } from "../../src/files/queue-dirs.ts";
import { makeQueue, verq, type TestQueue } from "./helpers/queue-fixture.ts";

let q: TestQueue;

const msg = (msgId: string, orderNo: string, seq: number, sentAt = "2026-01-05T09:00:00Z") => ({
  name: `${msgId}.json`,
  text: JSON.stringify({ msg_id: msgId, order_no: orderNo, seq, amount: 1, sent_at: sentAt }),
});

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    beforeEach(async () => {
      q = await makeQueue(engine, "order");
    });
    afterEach(() => q.remove());

    describe("F6 order check", () => {
      it("F6: a duplicated seq (two msg_ids) and missing seqs (a gap, and a group that does not start at 1) are listed; exit 1", async () => {
        q.write([
          msg("A1", "O-A", 1),
          msg("A2", "O-A", 2),
          msg("A2b", "O-A", 2), // another message claiming seq 2
          msg("A3", "O-A", 3),
          msg("B1", "O-B", 1),
          msg("B4", "O-B", 4), // 2 and 3 missing
          msg("C3", "O,C", 3), // 1 and 2 missing; a comma in the order number
          msg("D1", "O-D", 1),
        ]);
        await verq("files", "consume", q.root, "--db", q.db);
        const r = await verq("files", "order-check", "--db", q.db);
        expect(r).toEqual({
          code: 1,
          out: '"O,C",missing,1\n"O,C",missing,2\nO-A,duplicate,2\nO-B,missing,2\nO-B,missing,3\n',
          err: "",
        });
        expect(JSON.parse((await verq("files", "order-check", "--db", q.db, "--json")).out)).toMatchObject({
          truncated: false,
          problems: [
            { group: "O,C", kind: "missing", sequence: 1 },
            {},
            { group: "O-A", kind: "duplicate", sequence: 2 },
            {},
            {},
          ],
        });
      });

      it("F6: judged by stored sequence numbers, not by processing or sending time: out-of-order arrival is OK", async () => {
        // Arrive (and are processed) in reverse order, with send times that disagree with seq.
        q.write([
          msg("z1", "O-1", 1, "2026-01-05T09:09:00Z"),
          msg("y2", "O-1", 2, "2026-01-05T09:01:00Z"),
          msg("x3", "O-1", 3, "2026-01-05T09:05:00Z"),
        ]);
        await verq("files", "consume", q.root, "--db", q.db);
        expect(await verq("files", "order-check", "--db", q.db)).toEqual({ code: 0, out: "OK\n", err: "" });
      });

      it("F6: a wide gap is capped by --limit with a note; the profile's sequenceStart moves the first expected seq", async () => {
        q.write([msg("W0", "O-W", 0), msg("W1", "O-W", 1), msg("W9", "O-W", 100_000)]);
        const profile = join(q.dir, "profile.json");
        writeFileSync(
          profile,
          JSON.stringify({
            fields: {
              msg_id: { type: "string" },
              order_no: { type: "string" },
              seq: { type: "integer" },
              amount: { type: "number" },
            },
            idempotencyKey: "msg_id",
            group: "order_no",
            sequence: "seq",
            amount: "amount",
            sequenceStart: 0,
          }),
        );
        await verq("files", "consume", q.root, "--db", q.db, "--profile", profile);
        const r = await verq("files", "order-check", "--db", q.db, "--profile", profile, "--limit", "3");
        expect(r).toEqual({
          code: 1,
          out: "O-W,missing,2\nO-W,missing,3\nO-W,missing,4\n",
          err: "verq: more than 3 problems; only the first 3 are shown\n",
        });
        // With the default start (1), seq 0 is below the start: never counted as missing.
        expect((await verq("files", "order-check", "--db", q.db, "--limit", "1")).out).toBe("O-W,missing,2\n");
      });

      it("F6: an empty database is OK", async () => {
        await verq("files", "consume", q.root, "--db", q.db);
        expect(await verq("files", "order-check", "--db", q.db)).toEqual({ code: 0, out: "OK\n", err: "" });
      });
    });
  });
}

describe("read-only commands on a SQLite file that does not exist", () => {
  it("F6: order-check, dups and errors exit 4 (VERQ_FILE_NOT_FOUND) and create no file", async () => {
    const dir = tempDir("verq-order-missing-");
    try {
      const missing = join(dir.path, "nope.sqlite");
      const root = join(dir.path, "q");
      initQueue(root);
      for (const args of [
        ["files", "order-check", "--db", missing],
        ["files", "dups", "--db", missing],
        ["files", "errors", root, "--db", missing],
      ]) {
        const r = await verq(...args);
        expect([args.join(" "), r.code, r.err]).toEqual([args.join(" "), 4, expect.stringContaining("VERQ_FILE_NOT_FOUND")]);
      }
      expect(existsSync(missing)).toBe(false);
    } finally {
      dir.remove();
    }
  });
});
