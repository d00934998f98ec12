import { VerqError } from "@verq/core";
import { ReceiptBook, type VerqStore } from "@verq/store";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import type { FastifyInstance } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createInventoryReceiver } from "../../../cli/src/inventory-receiver.ts";
import { createReceiverServer } from "../../src/http/receiver-server.ts";

let app: FastifyInstance | undefined;
let url: string;

const listen = async (server: FastifyInstance) => {
  app = server;
  url = await server.listen({ port: 0, host: "127.0.0.1" });
};
const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
const counts = async () => (await (await fetch(`${url}/inventory`)).json()) as Record<string, number>;

/** The tables of `store` in its own database: on PostgreSQL only those of its schema, not other tests'. */
const tablesOf = async (store: VerqStore, database: TestDatabase): Promise<string[]> =>
  (await store.db.introspection.getTables())
    .filter((t) => database.schema === null || t.schema === database.schema)
    .map((t) => t.name);

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    let database: TestDatabase;
    let store: VerqStore;

    beforeEach(async () => {
      database = await createTestDatabase(engine, "receiver.sqlite");
      store = await database.open();
    });
    afterEach(async () => {
      await app?.close();
      app = undefined;
      await store.close();
      await database.dispose();
    });

    describe("the idempotent receiver of verq receiver serve (the sample inventory effect)", () => {
      beforeEach(async () => {
        await listen(await createInventoryReceiver({ store, bodyLimit: 1_024 }));
      });

      it("J8: commits the key and the effect once; a repeat gets the first answer byte for byte and no second effect", async () => {
        const first = await post('{"quantity":7}', { "idempotency-key": "order-7" });
        const firstText = await first.text();
        const again = await post('{"quantity":7}', { "idempotency-key": "order-7" });
        expect(first.status).toBe(200);
        expect(again.status).toBe(200);
        expect(await again.text()).toBe(firstText);
        expect(firstText).toBe('{"ok":true}');
        expect(first.headers.get("idempotent-replayed")).toBe("false");
        expect(again.headers.get("idempotent-replayed")).toBe("true");
        expect(await counts()).toEqual({ inventory: 7, requests: 2, effects: 1 });
      });

      it("concurrent repeats of one key apply the effect once", async () => {
        const answers = await Promise.all(Array.from({ length: 20 }, () => post('{"quantity":3}', { "idempotency-key": "k" })));
        expect(answers.every((a) => a.status === 200)).toBe(true);
        expect(await counts()).toEqual({ inventory: 3, requests: 20, effects: 1 });
      });

      it.each([
        ["no Idempotency-Key", 400, "VERQ_MISSING_IDEMPOTENCY_KEY", '{"quantity":7}', {}],
        ["malformed JSON", 400, "VERQ_INVALID_BODY", '{"quantity":', { "idempotency-key": "a" }],
        ["a quantity that is not a number", 400, "VERQ_INVALID_BODY", '{"quantity":"7"}', { "idempotency-key": "a" }],
        ["a negative quantity", 400, "VERQ_INVALID_BODY", '{"quantity":-1}', { "idempotency-key": "a" }],
        [
          "an oversized body",
          413,
          "VERQ_BODY_TOO_LARGE",
          JSON.stringify({ quantity: 1, pad: "x".repeat(2_000) }),
          { "idempotency-key": "a" },
        ],
        ["a key with a line break", 400, "VERQ_INVALID_IDEMPOTENCY_KEY", '{"quantity":7}', { "idempotency-key": "a\tb" }],
        [
          "JSON sent as text/plain",
          415,
          "VERQ_UNSUPPORTED_MEDIA_TYPE",
          '{"quantity":7}',
          { "idempotency-key": "a", "content-type": "text/plain" },
        ],
        [
          "JSON sent as a form",
          415,
          "VERQ_UNSUPPORTED_MEDIA_TYPE",
          '{"quantity":7}',
          { "idempotency-key": "a", "content-type": "application/x-www-form-urlencoded" },
        ],
      ])("%s gets HTTP %i %s and changes nothing", async (_what, status, code, body, headers) => {
        const response = await post(body, headers);
        expect(response.status).toBe(status);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
        expect(await counts()).toEqual({ inventory: 0, requests: 0, effects: 0 });
      });

      it("keeps the inventory in its own table, created by the receiver: a fresh store has none", async () => {
        const freshDatabase = await createTestDatabase(engine, "fresh.sqlite");
        const fresh = await freshDatabase.open();
        try {
          const tables = await tablesOf(fresh, freshDatabase);
          expect(tables).toContain("receipts");
          expect(tables).not.toContain("inventory");
        } finally {
          await fresh.close();
          await freshDatabase.dispose();
        }
        expect(await tablesOf(store, database)).toContain("inventory");
      });
    });

    describe("the receiver with the service's own effect", () => {
      type Shipments = {
        shipments: { key: string; sku: string };
      };
      let effects = 0;
      let failNext = false;

      beforeEach(async () => {
        effects = 0;
        failNext = false;
        await store.db.schema
          .createTable("shipments")
          .addColumn("key", "text", (c) => c.primaryKey())
          .addColumn("sku", "text", (c) => c.notNull())
          .execute();
        await listen(
          createReceiverServer({
            store,
            effect: async (trx, { key, body }) => {
              const sku = (body as { sku?: unknown } | undefined)?.sku;
              if (typeof sku !== "string") throw new VerqError("VERQ_INVALID_BODY", 'a shipment is {"sku": "..."}');
              effects++;
              await trx.withTables<Shipments>().insertInto("shipments").values({ key, sku }).execute();
              if (failNext) throw new Error("the warehouse is down");
              return { shipped: sku, n: effects };
            },
          }),
        );
      });
      const shipments = () => store.db.withTables<Shipments>().selectFrom("shipments").selectAll().execute();

      it("J8: stores the effect's answer and replays it byte for byte; the effect runs once per key", async () => {
        const first = await post('{"sku":"A-1"}', { "idempotency-key": "s-1" });
        const again = await post('{"sku":"A-1"}', { "idempotency-key": "s-1" });
        expect([first.status, await first.text()]).toEqual([200, '{"shipped":"A-1","n":1}']);
        expect([again.status, await again.text(), again.headers.get("idempotent-replayed")]).toEqual([
          200,
          '{"shipped":"A-1","n":1}',
          "true",
        ]);
        expect(effects).toBe(1);
        expect(await shipments()).toEqual([{ key: "s-1", sku: "A-1" }]);
        expect(await new ReceiptBook(store).counts()).toEqual({ requests: 2, effects: 1 });
      });

      it("a VERQ_INVALID_BODY from the effect is a 400 with its message, and nothing is recorded", async () => {
        const response = await post('{"sku":7}', { "idempotency-key": "s-2" });
        expect(response.status).toBe(400);
        expect(await response.json()).toEqual({ error: { code: "VERQ_INVALID_BODY", message: 'a shipment is {"sku": "..."}' } });
        expect(await new ReceiptBook(store).counts()).toEqual({ requests: 0, effects: 0 });
        // The key was not used up: a good body under it is applied.
        expect((await post('{"sku":"B-2"}', { "idempotency-key": "s-2" })).status).toBe(200);
        expect(await shipments()).toEqual([{ key: "s-2", sku: "B-2" }]);
      });

      it("an effect that throws anything else is a 500 VERQ_UNEXPECTED; its writes roll back and the key can be sent again", async () => {
        failNext = true;
        const failed = await post('{"sku":"C-3"}', { "idempotency-key": "s-3" });
        expect(failed.status).toBe(500);
        expect(await failed.json()).toEqual({ error: { code: "VERQ_UNEXPECTED", message: "the request could not be handled" } });
        expect(await shipments()).toEqual([]);
        expect(await new ReceiptBook(store).counts()).toEqual({ requests: 0, effects: 0 });
        failNext = false;
        const retried = await post('{"sku":"C-3"}', { "idempotency-key": "s-3" });
        expect([retried.status, retried.headers.get("idempotent-replayed")]).toEqual([200, "false"]);
        expect(await shipments()).toEqual([{ key: "s-3", sku: "C-3" }]);
      });
    });
  });
}
