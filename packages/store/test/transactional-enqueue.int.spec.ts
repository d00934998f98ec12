import { ManualClock, isVerqError } from "@verq/core";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JobQueue, type VerqStore } from "../src/index.ts";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    // A service's own table, beside verq's, in the same database (SQLite file or PostgreSQL schema).
    interface OrderRow {
      id: string;
      amount: number;
    }
    type ServiceTables = { orders: OrderRow };

    const T0 = 1_700_000_000_000;
    let database: TestDatabase;
    let store: VerqStore;
    let queue: JobQueue;

    beforeEach(async () => {
      database = await createTestDatabase(engine, "service.sqlite");
      store = await database.open();
      queue = new JobQueue(store, { clock: new ManualClock(T0) });
      await sql`create table orders (id text primary key, amount integer not null)`.execute(store.db);
    });
    afterEach(async () => {
      await store.close();
      await database.dispose();
    });

    async function contents() {
      const db = store.db.withTables<ServiceTables>();
      return {
        orders: await db.selectFrom("orders").selectAll().orderBy("id").execute(),
        jobs: await db.selectFrom("jobs").select(["id", "state"]).orderBy("id").execute(),
        events: await db.selectFrom("events").select(["stream_id", "type"]).orderBy("position").execute(),
      };
    }

    class Boom extends Error {}

    describe("P2: enqueue inside the service's own transaction", () => {
      it("a transaction that inserts a row and enqueues, then throws, leaves neither the row nor the job nor any event", async () => {
        await expect(
          store.transaction(async (trx) => {
            await trx.withTables<ServiceTables>().insertInto("orders").values({ id: "o-1", amount: 700 }).execute();
            const result = await queue.enqueue({ id: "charge-o-1", payload: { orderId: "o-1" } }, { trx });
            expect(result.created).toBe(true);
            throw new Boom("the service changed its mind after the enqueue");
          }),
        ).rejects.toBeInstanceOf(Boom);
        expect(await contents()).toEqual({ orders: [], jobs: [], events: [] });
      });

      it("the committed transaction has both the row and the pending job with its enqueue event; a worker claims it", async () => {
        await store.transaction(async (trx) => {
          await trx.withTables<ServiceTables>().insertInto("orders").values({ id: "o-2", amount: 300 }).execute();
          await queue.enqueue({ id: "charge-o-2", payload: { orderId: "o-2" } }, { trx });
        });
        expect(await contents()).toEqual({
          orders: [{ id: "o-2", amount: 300 }],
          jobs: [{ id: "charge-o-2", state: "pending" }],
          events: [{ stream_id: "charge-o-2", type: "job.enqueued" }],
        });
        const claimed = await queue.claim("worker-1");
        expect(claimed).toMatchObject({ id: "charge-o-2", token: 1, payload: { orderId: "o-2" } });
      });

      it("works the same with Kysely's own transaction on the store's database, and survives a reopen", async () => {
        await store.db
          .withTables<ServiceTables>()
          .transaction()
          .execute(async (trx) => {
            await trx.insertInto("orders").values({ id: "o-3", amount: 1 }).execute();
            await queue.enqueueMany(
              [
                { id: "charge-o-3", payload: { orderId: "o-3" } },
                { id: "mail-o-3", payload: { orderId: "o-3" } },
              ],
              { trx },
            );
          });
        await store.close();
        store = await database.open();
        queue = new JobQueue(store, { clock: new ManualClock(T0) });
        const after = await contents();
        expect(after.orders).toEqual([{ id: "o-3", amount: 1 }]);
        expect(after.jobs).toEqual([
          { id: "charge-o-3", state: "pending" },
          { id: "mail-o-3", state: "pending" },
        ]);
      });

      it("an enqueue refused inside the transaction (payload conflict) rolls the service's row back with it", async () => {
        await queue.enqueue({ id: "charge-o-4", payload: { orderId: "o-4" } });
        const before = await contents();
        const error: unknown = await store
          .transaction(async (trx) => {
            await trx.withTables<ServiceTables>().insertInto("orders").values({ id: "o-4", amount: 9 }).execute();
            await queue.enqueue({ id: "charge-o-4", payload: { orderId: "another" } }, { trx });
          })
          .catch((e: unknown) => e);
        expect(isVerqError(error, "VERQ_ENQUEUE_CONFLICT")).toBe(true);
        expect(await contents()).toEqual(before);
      });

      it("the same id and payload again inside a transaction is a no-op, and the service's row still commits", async () => {
        await queue.enqueue({ id: "charge-o-5", payload: { orderId: "o-5" } });
        const again = await store.transaction(async (trx) => {
          await trx.withTables<ServiceTables>().insertInto("orders").values({ id: "o-5", amount: 5 }).execute();
          return queue.enqueue({ id: "charge-o-5", payload: { orderId: "o-5" } }, { trx });
        });
        expect(again.created).toBe(false);
        const after = await contents();
        expect(after.orders).toEqual([{ id: "o-5", amount: 5 }]);
        expect(after.events).toHaveLength(1);
      });

      it("bad input: a trx that is not a transaction is refused with VERQ_INVALID_ARGUMENT and nothing is written", async () => {
        for (const trx of [store.db, {}, "trx", 42]) {
          // Plain JavaScript callers may pass anything.
          const error: unknown = await queue
            .enqueue({ id: "charge-bad", payload: {} }, { trx: trx as never })
            .catch((e: unknown) => e);
          expect(isVerqError(error, "VERQ_INVALID_ARGUMENT")).toBe(true);
        }
        expect(await contents()).toEqual({ orders: [], jobs: [], events: [] });
      });

      it("a worker of the same process is woken by an enqueue in a transaction and claims after the commit", async () => {
        const woken: (string | null)[] = [];
        const claims: Promise<void>[] = [];
        queue.onEnqueued(() => {
          claims.push(queue.claim("worker-1").then((job) => void woken.push(job?.id ?? null)));
        });
        await store.transaction(async (trx) => {
          await queue.enqueue({ id: "charge-o-6", payload: { orderId: "o-6" } }, { trx });
          await trx.withTables<ServiceTables>().insertInto("orders").values({ id: "o-6", amount: 6 }).execute();
        });
        await Promise.all(claims);
        expect(woken).toEqual(["charge-o-6"]);
      });

      it("a worker of another queue on the same store is woken too; a rolled-back enqueue wakes nobody", async () => {
        const worker = new JobQueue(store, { clock: new ManualClock(T0) });
        const woken: (string | null)[] = [];
        const claims: Promise<void>[] = [];
        const unsubscribe = worker.onEnqueued(() => {
          claims.push(worker.claim("worker-2").then((job) => void woken.push(job?.id ?? null)));
        });
        await expect(
          store.transaction(async (trx) => {
            await queue.enqueue({ id: "charge-o-7", payload: { orderId: "o-7" } }, { trx });
            throw new Boom("rolled back after the enqueue");
          }),
        ).rejects.toBeInstanceOf(Boom);
        expect(claims).toEqual([]);
        await queue.enqueue({ id: "charge-o-8", payload: { orderId: "o-8" } });
        await Promise.all(claims);
        expect(woken).toEqual(["charge-o-8"]);
        unsubscribe();
      });
    });
  });
}
