import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileLedger, openStore, type VerqStore } from "@verq/store";
import { ENGINES, engineAvailable } from "@verq/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FileOutcome } from "../../src/files/consume-totals.ts";
import { FileConsumer } from "../../src/files/file-consumer.ts";
import { makeQueue, names, verq, withLedger, type TestQueue } from "./helpers/queue-fixture.ts";

// The user's own tables, next to verq's, reached through the same Kysely instance.
type UserTables = {
  balance: { account: string; total: number };
  effects: { key: string };
};
const user = (db: VerqStore["db"]) => db.withTables<UserTables>();

let q: TestQueue;

const msg = (id: string, amount = 5) => JSON.stringify({ msg_id: id, order_no: "O-1", seq: Number(id.slice(1)), amount });

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    beforeEach(async () => {
      q = await makeQueue(engine, "handler");
    });
    afterEach(() => q.remove());

    describe("F3 the user's handler runs in the transaction of the processed insert", () => {
      it("F3: the business effect is applied once per msg_id, never for a duplicate, and commits with the processed row", async () => {
        q.write([
          { name: "1.json", text: msg("H1", 10) },
          { name: "2.json", text: msg("H2", 20) },
          { name: "3.json", text: msg("H1", 10) }, // resent
          { name: "4.json", text: msg("H3", 30) },
        ]);
        await withLedger(q.db, async (ledger, store) => {
          await store.db.schema
            .createTable("balance")
            .addColumn("account", "text", (c) => c.primaryKey())
            .addColumn("total", "integer", (c) => c.notNull())
            .execute();
          await user(store.db).insertInto("balance").values({ account: "O-1", total: 0 }).execute();
          const seen: string[] = [];
          const totals = await new FileConsumer({
            root: q.root,
            ledger,
            handler: async (m, trx) => {
              seen.push(`${m.key}:${m.file}:${String(m.fields.amount)}`);
              await user(trx)
                .updateTable("balance")
                .set((eb) => ({ total: eb("total", "+", m.amount ?? 0) }))
                .where("account", "=", m.group)
                .execute();
            },
          }).drain();
          expect(totals).toMatchObject({ done: 4, recorded: 3, duplicates: 1, error: 0 });
          expect(seen).toEqual(["H1:1.json:10", "H2:2.json:20", "H3:4.json:30"]);
          expect(await user(store.db).selectFrom("balance").select("total").execute()).toEqual([{ total: 60 }]);
        });
      });

      it("F3/F5: a handler that throws leaves no row and no effect; the file goes to error/ as `handler` without the error's text; a replay after the fix gets it done", async () => {
        q.write([
          { name: "a.json", text: msg("H1") },
          { name: "b.json", text: msg("H2") },
        ]);
        let broken = true;
        const outcomes: FileOutcome[] = [];
        await withLedger(q.db, async (ledger, store) => {
          await store.db.schema
            .createTable("effects")
            .addColumn("key", "text", (c) => c.primaryKey())
            .execute();
          const consumer = () =>
            new FileConsumer({
              root: q.root,
              ledger,
              onFile: (o) => outcomes.push(o),
              handler: async (m, trx) => {
                await user(trx).insertInto("effects").values({ key: m.key }).execute();
                if (broken && m.key === "H2") throw new TypeError("downstream said: card 4111-1111 declined");
              },
            });
          expect(await consumer().drain()).toMatchObject({ done: 1, error: 1 });
          expect(outcomes.map((o) => [o.file, o.state, o.reason, o.detail])).toEqual([
            ["a.json", "done", null, null],
            ["b.json", "error", "handler", "the handler threw TypeError"],
          ]);
          expect(names(q.dirs.error)).toEqual(["b.json"]);
          expect(names(q.dirs.done)).toEqual(["a.json"]);
          expect((await ledger.processed()).map((r) => r.msg_id)).toEqual(["H1"]);
          expect(await user(store.db).selectFrom("effects").select("key").execute()).toEqual([{ key: "H1" }]);
          const events = await store.db.selectFrom("events").select("data").where("type", "=", "message.rejected").execute();
          expect(JSON.stringify(events)).not.toContain("4111");

          broken = false;
          expect((await verq("files", "replay", q.root, "b.json")).code).toBe(0);
          expect(await consumer().drain()).toMatchObject({ done: 1, error: 0 });
          expect(await user(store.db).selectFrom("effects").select("key").orderBy("key").execute()).toEqual([
            { key: "H1" },
            { key: "H2" },
          ]);
        });
      });

      it("F3: a store failure (not the handler's) leaves the file in processing/ for the next start, and nothing in done/", async () => {
        q.write([{ name: "x.json", text: msg("X1") }]);
        const store = await openStore(q.db);
        const consumer = new FileConsumer({ root: q.root, ledger: new FileLedger(store) });
        await store.close(); // every query now fails, as with a lost disk
        await expect(consumer.drain()).rejects.toThrow();
        expect(names(q.dirs.processing)).toHaveLength(1);
        expect(names(q.dirs.done)).toEqual([]);
        // The next start (here: a new consumer in the same process, whose claim is no longer in flight) recovers it.
        await withLedger(q.db, async (ledger) => {
          expect(await new FileConsumer({ root: q.root, ledger }).drain()).toMatchObject({ done: 1, recovered: 1 });
        });
        expect(names(q.dirs.processing)).toEqual([]);
        expect(names(q.dirs.done)).toEqual(["x.json"]);
      });

      it("F1: a file in processing/ claimed by a consumer of this process that is still working is not taken by another", async () => {
        writeFileSync(join(q.dirs.inbox, "slow.json"), msg("S1"));
        await withLedger(q.db, async (ledger) => {
          let release: () => void = () => {};
          const gate = new Promise<void>((resolve) => (release = resolve));
          let entered: () => void = () => {};
          const inHandler = new Promise<void>((resolve) => (entered = resolve));
          const slow = new FileConsumer({ root: q.root, ledger, handler: async () => (entered(), await gate) }).drain();
          await inHandler;
          expect(names(q.dirs.processing)).toHaveLength(1);
          // Same pid, claim in flight: recovery leaves it alone (it would wait for the lock otherwise).
          expect(await new FileConsumer({ root: q.root, ledger }).recover()).toBe(0);
          release();
          expect(await slow).toMatchObject({ done: 1, recovered: 0 });
        });
      });
    });
  });
}
