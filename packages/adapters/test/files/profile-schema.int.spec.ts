import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ENGINES, engineAvailable } from "@verq/testing";
import { DEFAULT_PROFILE, parseProfile } from "../../src/files/profile.ts";
import { leftBehind } from "../support/left-behind.ts";
import { makeQueue, outcome, verq, withLedger, type TestQueue } from "./helpers/queue-fixture.ts";

let q: TestQueue;

const invoiceProfile = {
  fields: {
    invoice_id: { type: "integer" },
    account: { type: "string" },
    line: { type: "integer" },
    total: { type: "number", required: false },
    paid: { type: "boolean" },
  },
  idempotencyKey: "invoice_id",
  group: "account",
  sequence: "line",
  amount: "total",
};

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    beforeEach(async () => {
      q = await makeQueue(engine, "profile");
    });
    afterEach(() => q.remove());

    describe("F2/F9 profile and schema", () => {
      it("F2: the default profile is the course's: msg_id, order_no, seq, amount, all required", () => {
        expect(DEFAULT_PROFILE).toEqual({
          fields: {
            msg_id: { type: "string", required: true },
            order_no: { type: "string", required: true },
            seq: { type: "integer", required: true },
            amount: { type: "number", required: true },
          },
          idempotencyKey: "msg_id",
          group: "order_no",
          sequence: "seq",
          amount: "amount",
          sequenceStart: 1,
        });
      });

      it("F2: a profile is validated: unknown role fields, wrong role types, optional keys, shared roles and unknown keys are refused", () => {
        const base = structuredClone(invoiceProfile);
        expect(() => parseProfile({ ...base, idempotencyKey: "nope" })).toThrow(
          /idempotencyKey: nope is not one of the declared fields/,
        );
        expect(() => parseProfile({ ...base, sequence: "account" })).toThrow(/sequence: account must be of type integer/);
        expect(() =>
          parseProfile({ ...base, fields: { ...base.fields, invoice_id: { type: "integer", required: false } } }),
        ).toThrow(/must be a required field/);
        expect(() => parseProfile({ ...base, group: "invoice_id" })).toThrow(/each role needs its own field/);
        expect(() => parseProfile({ ...base, extra: 1 })).toThrow(/invalid profile/);
        expect(() => parseProfile({ ...base, fields: { ...base.fields, x: { type: "date" } } })).toThrow(/invalid profile/);
        expect(() => parseProfile({ ...base, fields: { "bad name": { type: "string" } } })).toThrow(/invalid profile/);
        expect(parseProfile(base).sequenceStart).toBe(1);
      });

      it("F2/F3/F9: a custom profile: its fields are checked, its key is the primary key, schema shows its roles", async () => {
        const profile = join(q.dir, "invoice.json");
        writeFileSync(profile, JSON.stringify(invoiceProfile));
        const inv = (id: number, line: number, extra: Record<string, unknown> = {}) =>
          JSON.stringify({ invoice_id: id, account: "ACME", line, total: 9.5, paid: false, ...extra });
        q.write([
          { name: "i1.json", text: inv(1, 1) },
          { name: "i2.json", text: inv(2, 2, { total: undefined }) }, // optional amount absent
          { name: "i3.json", text: inv(1, 1) }, // duplicate key 1
          { name: "i4.json", text: inv(4, 3, { paid: "no" }) }, // invalid-field
          { name: "i5.json", text: JSON.stringify({ invoice_id: 5, account: "ACME", line: 4 }) }, // missing paid
        ]);
        const schema = await verq("files", "schema", q.root, "--profile", profile);
        expect(schema.out).toBe(
          "field,type,role\ninvoice_id,integer,idempotency-key\naccount,string,\nline,integer,sequence\ntotal,number,\npaid,boolean,\n",
        );

        expect((await verq("files", "consume", q.root, "--db", q.db, "--profile", profile)).out).toBe(
          "done=3 error=2 duplicates=1 recovered=0\n",
        );
        expect((await verq("files", "dups", "--db", q.db)).out).toBe("1\n");
        expect((await verq("files", "errors", q.root, "--db", q.db)).out).toBe(
          "file,reason\ni4.json,invalid-field\ni5.json,missing-field\n",
        );
        await withLedger(q.db, async (ledger) => {
          expect((await ledger.processed()).map((r) => [r.msg_id, r.order_no, r.seq, r.amount])).toEqual([
            ["1", "ACME", 1, 9.5],
            ["2", "ACME", 2, null],
          ]);
        });
        expect((await outcome(q)).processing).toBe(0);
      });

      it("F9: schema with mixed types and nothing valid; a bad --profile is a usage error (exit 2)", async () => {
        q.write([
          { name: "a.json", text: JSON.stringify({ msg_id: "A", order_no: "O", seq: 1, amount: 10, note: null }) },
          { name: "b.json", text: JSON.stringify({ msg_id: "B", order_no: "O", seq: 2, amount: 10.5, note: "x" }) },
          { name: "bad.json", text: JSON.stringify({ msg_id: "C", other: true }) }, // not valid: left out
        ]);
        expect((await verq("files", "schema", q.root)).out).toBe(
          "field,type,role\nmsg_id,string,idempotency-key\norder_no,string,\nseq,integer,sequence\namount,number,\nnote,null|string,\n",
        );

        const empty = await makeQueue(engine, "profile-empty");
        try {
          expect(await verq("files", "schema", empty.root)).toEqual({
            code: 0,
            out: "field,type,role\n",
            err: "verq: no valid message in inbox/ or done/ to infer fields from\n",
          });
        } finally {
          await empty.remove();
        }
        const badProfile = join(q.dir, "bad.json");
        writeFileSync(badProfile, "{ not json");
        expect((await verq("files", "schema", q.root, "--profile", badProfile)).code).toBe(2);
        expect((await verq("files", "consume", q.root, "--db", q.db, "--profile", join(q.dir, "missing.json"))).code).toBe(2);
        // The profile is read before the database is opened: no SQLite file, no table.
        expect(await leftBehind(q.database)).toEqual([]);
        expect((await verq("files", "schema", join(q.dir, "not-a-queue"))).code).toBe(2);
      });
    });
  });
}
