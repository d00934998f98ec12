import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ENGINES, engineAvailable } from "@verq/testing";
import { makeQueue, names, verq, type TestQueue } from "./helpers/queue-fixture.ts";

const valid = (msgId: string) => JSON.stringify({ msg_id: msgId, order_no: `O-${msgId}`, seq: 1, amount: 10 });

let q: TestQueue;

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    beforeEach(async () => {
      q = await makeQueue(engine, "long");
    });
    afterEach(() => q.remove());

    it("F1: a 255-byte name (the filesystem's limit) is claimed under a shortened unique name and settles; the run exits 0", async () => {
      const long = `${"a".repeat(250)}.json`;
      const longBad = `${"a".repeat(249)}b.json`; // the same first 249 bytes: the shortened names must differ
      q.write([
        { name: long, text: valid("L1") },
        { name: longBad, text: "{" },
      ]);
      const run = await verq("files", "consume", q.root, "--db", q.db);
      expect(run.err).toBe("");
      expect(run.code).toBe(0);
      expect(run.out).toBe("done=1 error=1 duplicates=0 recovered=0\n");
      expect(names(q.dirs.inbox)).toEqual([]);
      expect(names(q.dirs.processing)).toEqual([]);
      const [done] = names(q.dirs.done);
      const [error] = names(q.dirs.error);
      expect(done).toMatch(/^a+~[0-9a-f]{8}\.json$/);
      expect(error).toMatch(/^a+~[0-9a-f]{8}\.json$/);
      expect(done).not.toBe(error);
      const errors = JSON.parse((await verq("files", "errors", q.root, "--db", q.db, "--json")).out) as unknown[];
      expect(errors).toEqual([{ file: error, reason: "parse", detail: "not valid JSON (at character 1)" }]);
    });
  });
}
