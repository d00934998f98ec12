import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileLedger, type MessageVerdict, type SettleInput, type VerqStore } from "../src/index.ts";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    let database: TestDatabase;
    let store: VerqStore;
    let ledger: FileLedger;
    let now = 1_700_000_000_000;
    const clock = { now: () => now };

    beforeEach(async () => {
      database = await createTestDatabase(engine, "ledger.sqlite");
      store = await database.open();
      ledger = new FileLedger(store, { clock });
    });
    afterEach(async () => {
      await store.close();
      await database.dispose();
    });

    const valid = (key: string, seq = 1, file = `${key}.json`): MessageVerdict => ({
      kind: "valid",
      key,
      group: "O-1",
      sequence: seq,
      amount: 10,
      message: JSON.stringify({ msg_id: key }),
      file,
    });
    const input = (claimId: string, file: string, verdict: MessageVerdict, extra: Partial<SettleInput> = {}): SettleInput => ({
      claimId,
      owner: "1@host",
      file,
      recovered: false,
      errorCopyExists: false,
      verdict,
      ...extra,
    });

    describe("FileLedger", () => {
      it("F3: the processed table has the course's columns; msg_id alone is its key", async () => {
        const tables = await store.db.introspection.getTables();
        const processed = tables.find((t) => t.name === "processed" && t.schema === (database.schema ?? undefined));
        expect(processed?.columns.map((c) => c.name)).toEqual([
          "msg_id",
          "order_no",
          "seq",
          "amount",
          "processed_at",
          "file",
          "message_id",
          "message",
        ]);
        const insert = (msgId: string, orderNo: string, file: string, messageId: string) =>
          sql`insert into processed (msg_id, order_no, seq, amount, processed_at, file, message_id, message)
            values (${msgId}, ${orderNo}, 1, 1, 0, ${file}, ${messageId}, '{}')`.execute(store.db);
        await insert("K1", "O-1", "a.json", "m1");
        const error: unknown = await insert("K1", "O-2", "b.json", "m2").then(
          () => null,
          (e: unknown) => e,
        );
        expect(store.dialect.errors.isUniqueViolation(error)).toBe(true);
        // Every other column may repeat: the key is msg_id and nothing else.
        await insert("K2", "O-1", "a.json", "m1");
        expect((await sql`select msg_id from processed order by msg_id`.execute(store.db)).rows).toEqual([
          { msg_id: "K1" },
          { msg_id: "K2" },
        ]);
      });

      it("F3: the primary key decides a duplicate, not a lookup: a row the ledger never wrote still stops the key", async () => {
        await sql`insert into processed (msg_id, order_no, seq, amount, processed_at, file, message_id, message)
          values ('K1', 'O-1', 1, 1, 0, 'elsewhere.json', 'outside', '{}')`.execute(store.db);
        const handled: string[] = [];
        const result = await ledger.settle(input("c1", "k1.json", valid("K1")), (_trx, m) =>
          Promise.resolve(void handled.push(m.key)),
        );
        expect(result.kind).toBe("duplicate");
        expect(handled).toEqual([]);
        expect(await ledger.duplicates()).toEqual([{ key: "K1", file: "K1.json", messageId: "c1", at: now }]);
      });

      it("F3: settling a claim again (a consumer died after the commit) writes nothing new", async () => {
        const first = await ledger.settle(input("c1", "a.json", valid("K1")));
        const again = await ledger.settle(input("c1", "a.json", valid("K1")));
        expect(again).toEqual({ kind: "already", message: first.message });
        expect(await ledger.findByClaim("c1")).toEqual(first.message);
        expect((await ledger.stats()).duplicates).toBe(0);
        expect((await ledger.history("c1")).map((e) => e.type)).toEqual(["message.claimed", "message.recorded"]);
      });

      it("a refused settle writes nothing at all, not even the processed row its verdict inserted", async () => {
        await expect(ledger.settle(input("c1", "in/a.json", valid("K1")))).rejects.toMatchObject({
          code: "VERQ_MESSAGE_REFUSED",
          message: expect.stringContaining("bad-file-name") as unknown,
        });
        expect(await ledger.processed()).toEqual([]);
        expect(await ledger.history("c1")).toEqual([]);
        // A rejected claim settled again with a valid verdict (a crash after the commit): `already`, and the row is rolled back.
        const bad: MessageVerdict = { kind: "invalid", reason: "handler", detail: "Error", file: "b.json" };
        const first = await ledger.settle(input("c2", "b.json", bad));
        expect(await ledger.settle(input("c2", "b.json", valid("K2", 1, "b.json")))).toEqual({
          kind: "already",
          message: first.message,
        });
        expect(await ledger.processed()).toEqual([]);
      });

      it("F8: a file found back in the inbox after error/ is settled as the move, its claim and its outcome", async () => {
        await ledger.settle(
          input("c1", "a.json", { kind: "invalid", reason: "parse", detail: "not valid JSON", file: "a.json" }),
        );
        const again = await ledger.settle(input("c2", "a.json", valid("K1", 1, "a.json")));
        expect(again).toMatchObject({ kind: "recorded", message: { id: "c1", state: "done", replays: 1, claims: 2 } });
        expect((await ledger.history("c1")).map((e) => e.type)).toEqual([
          "message.claimed",
          "message.rejected",
          "message.replayed",
          "message.claimed",
          "message.recorded",
        ]);
      });

      it("F8: replay records error → inbox only for a message in error; the next claim continues that stream", async () => {
        const bad: MessageVerdict = { kind: "invalid", reason: "missing-field", detail: "missing: amount", file: "a.json" };
        await ledger.settle(input("c1", "a.json", bad));
        expect(await ledger.replay("nope.json")).toBeNull();
        now += 1;
        expect(await ledger.replay("a.json")).toMatchObject({ id: "c1", state: "inbox", replays: 1 });
        expect(await ledger.replay("a.json")).toBeNull(); // already back in the inbox
        const done = await ledger.settle(input("c2", "a.json", valid("K1", 1, "a.json")));
        expect(done.message).toMatchObject({ id: "c1", state: "done", claims: 2, claimId: "c2" });
        // A file of the same name while another is still in error/ is a new message, a new stream.
        await ledger.settle(input("c3", "b.json", { ...bad, file: "b.json" }));
        const fresh = await ledger.settle(input("c4", "b.json", valid("K2", 2, "b~c4.json"), { errorCopyExists: true }));
        expect(fresh.message.id).toBe("c4");
        expect((await ledger.errorsFor(["b.json"])).get("b.json")?.id).toBe("c3");
      });

      it("F3: a rebuild from the message events gives exactly the live tables", async () => {
        await ledger.settle(input("c1", "a.json", valid("K1", 1)));
        await ledger.settle(input("c2", "b.json", valid("K1", 1, "b.json")));
        await ledger.settle(
          input("c3", "c.json", { kind: "invalid", reason: "parse", detail: "not valid JSON", file: "c.json" }),
        );
        now += 5;
        await ledger.replay("c.json");
        await ledger.settle(input("c4", "c.json", valid("K2", 2, "c.json")));
        const snapshot = async () => ({
          processed: await ledger.processed(),
          duplicates: await ledger.duplicates(),
          messages: (await sql`select * from messages order by id`.execute(store.db)).rows,
        });
        const live = await snapshot();
        expect(await ledger.rebuild()).toEqual({ messages: 3, events: 9 });
        expect(await snapshot()).toEqual(live);
      });

      it("F6: order problems by stored seq: duplicates and gaps, from the start, capped", async () => {
        const seqs = [1, 2, 2, 5, 9];
        for (const [i, seq] of seqs.entries()) await ledger.settle(input(`c${i}`, `${i}.json`, valid(`K${i}`, seq)));
        const check = await ledger.checkOrder();
        expect(check.problems.map((p) => `${p.kind}:${p.sequence}`)).toEqual([
          "duplicate:2",
          "missing:3",
          "missing:4",
          "missing:6",
          "missing:7",
          "missing:8",
        ]);
        expect((await ledger.checkOrder({ limit: 2 })).truncated).toBe(true);
        expect((await ledger.checkOrder({ start: 0 })).problems[0]).toEqual({ group: "O-1", kind: "missing", sequence: 0 });
      });
    });
  });
}
