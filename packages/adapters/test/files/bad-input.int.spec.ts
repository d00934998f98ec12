import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ENGINES, engineAvailable } from "@verq/testing";
import { digests, makeQueue, names, outcome, verq, withLedger, type TestQueue } from "./helpers/queue-fixture.ts";

const valid = (msgId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ msg_id: msgId, order_no: `O-${msgId}`, seq: 1, amount: 10, ...extra });

let q: TestQueue;

async function errorsJson(): Promise<{ file: string; reason: string; detail: string | null }[]> {
  return JSON.parse((await verq("files", "errors", q.root, "--db", q.db, "--json")).out) as {
    file: string;
    reason: string;
    detail: string | null;
  }[];
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    beforeEach(async () => {
      q = await makeQueue(engine, "bad");
    });
    afterEach(() => q.remove());

    describe("bad input: each file goes where it should, with its reason, whole and unchanged", () => {
      it("F2/F5: empty, blank, BOM, array, scalar, null, over the size limit, invalid UTF-8, UTF-16, spaces in names, non-.json ignored", async () => {
        const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(valid("BOM1"))]);
        const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(valid("U16"), "utf16le")]);
        const invalidUtf8 = Buffer.concat([
          Buffer.from('{"msg_id": "BAD'),
          Buffer.from([0xc3, 0x28]),
          Buffer.from('", "order_no": "O", "seq": 1, "amount": 1}'),
        ]);
        q.write([
          { name: "empty.json", text: "" },
          { name: "blank.json", text: " \n\t\n" },
          { name: "bom.json", text: bom },
          { name: "array.json", text: JSON.stringify([JSON.parse(valid("ARR")) as unknown]) },
          { name: "scalar.json", text: '"M1"' },
          { name: "null.json", text: "null" },
          { name: "big.json", text: valid("BIG", { note: "x".repeat(2_000) }) },
          { name: "exactly-at-limit.json", text: valid("EDGE", { note: "" }).padEnd(1_000, " ") },
          { name: "one-over-limit.json", text: valid("OVER", { note: "" }).padEnd(1_001, " ") },
          { name: "invalid-utf8.json", text: invalidUtf8 },
          { name: "utf16.json", text: utf16 },
          { name: "with spaces and ü.json", text: valid("SPACE") },
          { name: 'comma, "quote".json', text: "{" },
          { name: "notes.txt", text: valid("TXT") },
          { name: "data.json.tmp", text: valid("TMP") },
          { name: ".hidden.json", text: valid("HIDDEN") },
        ]);
        const before = digests(q.dirs.inbox);

        const run = await verq("files", "consume", q.root, "--db", q.db, "--max-bytes", "1000");
        expect(run.code).toBe(0);
        expect(run.out).toBe("done=3 error=10 duplicates=0 recovered=0\n");

        // Ignored: not .json, or hidden (a producer's temporary name). Left in the inbox, not counted.
        expect(names(q.dirs.inbox)).toEqual([".hidden.json", "data.json.tmp", "notes.txt"]);
        expect(names(q.dirs.processing)).toEqual([]);
        expect(names(q.dirs.done)).toEqual(["bom.json", "exactly-at-limit.json", "with spaces and ü.json"]);
        const reasons = Object.fromEntries((await errorsJson()).map((e) => [e.file, `${e.reason}: ${e.detail}`]));
        const bigReason: unknown = expect.stringMatching(/^too-large: \d+ bytes, over the limit of 1000$/);
        expect(reasons).toEqual({
          "array.json": "parse: not a JSON object (found an array)",
          "big.json": bigReason,
          "blank.json": "parse: no JSON in the file",
          'comma, "quote".json': "parse: not valid JSON (at character 1)",
          "empty.json": "parse: empty file",
          "invalid-utf8.json": "parse: not valid UTF-8",
          "null.json": "parse: not a JSON object (found null)",
          "one-over-limit.json": "too-large: 1001 bytes, over the limit of 1000",
          "scalar.json": "parse: not a JSON object (found a string)",
          "utf16.json": "parse: not valid UTF-8",
        });
        // The CSV quotes a name with a comma or a quote (RFC 4180).
        expect((await verq("files", "errors", q.root, "--db", q.db)).out).toContain('"comma, ""quote"".json",parse\n');

        // Nothing lost, nothing changed: every byte is where it went (the BOM file too).
        const after = new Map([...digests(q.dirs.inbox), ...digests(q.dirs.done), ...digests(q.dirs.error)]);
        expect(after).toEqual(before);
        await withLedger(q.db, async (ledger) => {
          expect((await ledger.processed()).map((r) => r.msg_id)).toEqual(["BOM1", "EDGE", "SPACE"]);
        });
      });

      it("F2/F5: amounts that are not numbers, wrong types and nulls: missing-field or invalid-field, never recorded", async () => {
        q.write([
          { name: "a-string-amount.json", text: valid("S1", { amount: "12.50" }) },
          { name: "b-bool-amount.json", text: valid("S2", { amount: true }) },
          { name: "c-null-amount.json", text: valid("S3", { amount: null }) },
          { name: "d-huge-amount.json", text: valid("S4").replace('"amount":10', '"amount":1e400') },
          { name: "e-fraction-seq.json", text: valid("S5", { seq: 1.5 }) },
          { name: "f-seq-zero.json", text: valid("S6", { seq: 0 }) },
          { name: "g-number-key.json", text: valid("S7", { msg_id: 7 }) },
          { name: "h-empty-key.json", text: valid("S8", { msg_id: "" }) },
          { name: "i-missing-two.json", text: JSON.stringify({ msg_id: "S9", order_no: "O" }) },
          { name: "j-fraction-amount.json", text: valid("S10", { amount: 12.5 }) },
          { name: "k-extra-fields.json", text: valid("S11", { note: { nested: [1, 2] } }) },
        ]);
        expect((await verq("files", "consume", q.root, "--db", q.db)).out).toBe("done=2 error=9 duplicates=0 recovered=0\n");
        expect(Object.fromEntries((await errorsJson()).map((e) => [e.file, `${e.reason}: ${e.detail}`]))).toEqual({
          "a-string-amount.json": "invalid-field: invalid: amount: expected number",
          "b-bool-amount.json": "invalid-field: invalid: amount: expected number",
          "c-null-amount.json": "missing-field: missing: amount",
          "d-huge-amount.json": "invalid-field: invalid: amount: expected number",
          "e-fraction-seq.json": "invalid-field: invalid: seq: expected int",
          "f-seq-zero.json": "invalid-field: invalid: seq: below 1",
          "g-number-key.json": "invalid-field: invalid: msg_id: expected string",
          "h-empty-key.json": "invalid-field: invalid: msg_id: empty",
          "i-missing-two.json": "missing-field: missing: seq, amount",
        });
        await withLedger(q.db, async (ledger) => {
          const rows = await ledger.processed();
          expect(rows.map((r) => [r.msg_id, r.amount])).toEqual([
            ["S10", 12.5],
            ["S11", 10],
          ]);
          expect(JSON.parse(rows[1]!.message)).toMatchObject({ note: { nested: [1, 2] } });
        });
      });

      it("F1: a folder in the inbox is left alone; a symbolic link goes to error/ as itself, never followed", async () => {
        const { mkdirSync, readlinkSync, symlinkSync } = await import("node:fs");
        mkdirSync(join(q.dirs.inbox, "folder.json"));
        writeFileSync(join(q.dir, "outside.json"), valid("OUT"));
        symlinkSync(join(q.dir, "outside.json"), join(q.dirs.inbox, "link.json"));
        q.write([{ name: "real.json", text: valid("REAL") }]);
        expect((await verq("files", "consume", q.root, "--db", q.db)).out).toBe("done=1 error=1 duplicates=0 recovered=0\n");
        expect(names(q.dirs.inbox)).toEqual(["folder.json"]);
        expect(readlinkSync(join(q.dirs.error, "link.json"))).toBe(join(q.dir, "outside.json"));
        expect(await errorsJson()).toEqual([
          { file: "link.json", reason: "parse", detail: "a symbolic link, not a file; never followed or read" },
        ]);
        expect((await outcome(q)).processed).toBe(1);
      });

      it("F3: a file name reused while the first one is still in done/ or error/ keeps both files", async () => {
        q.write([
          { name: "same.json", text: valid("R1") },
          { name: "broken.json", text: "{" },
        ]);
        await verq("files", "consume", q.root, "--db", q.db);
        q.write([
          { name: "same.json", text: valid("R2") },
          { name: "broken.json", text: "[1]" },
        ]);
        expect((await verq("files", "consume", q.root, "--db", q.db)).out).toBe("done=1 error=1 duplicates=0 recovered=0\n");
        const done = names(q.dirs.done);
        const error = names(q.dirs.error);
        expect(done).toHaveLength(2);
        expect(done[0]).toBe("same.json");
        expect(done[1]).toMatch(/^same~[0-9a-z]+\.json$/);
        expect(error).toHaveLength(2);
        const reasons = await errorsJson();
        expect(reasons.map((r) => r.detail)).toEqual(
          expect.arrayContaining(["not valid JSON (at character 1)", "not a JSON object (found an array)"]),
        );
        await withLedger(q.db, async (ledger) =>
          expect((await ledger.processed()).map((r) => [r.msg_id, r.file])).toEqual([
            ["R1", "same.json"],
            ["R2", done[1]],
          ]),
        );
      });
    });
  });
}
