import { ManualClock, isVerqError } from "@verq/core";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { JobQueue, type VerqStore } from "../src/index.ts";
import { createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import { helperScript, runTsChild } from "./helpers/run-ts-child.ts";

/*
 * A store call made inside `store.transaction(work)` without the `trx` it was handed. On SQLite
 * the transaction holds the store's one connection, so such a call used to wait for ever (a
 * script then ended with exit 13 and not a word); it now fails with `VERQ_NESTED_TRANSACTION`
 * once the transaction has run no statement for the store's `busyTimeoutMs` (short here, 300 ms).
 * Calls from other, independent async flows still wait for the connection and succeed, also
 * past that time while the holder runs statements. PostgreSQL has a pool: such a call runs on
 * another connection.
 */

/** The SQLite stores here wait this long for a holder that runs no statement. */
const STALL_MS = 300;

/** The verq code `promise` rejects with (the test fails if it resolves). */
async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return isVerqError(error) ? error.code : `not a verq error: ${String(error)}`;
  }
  return "resolved";
}

let database: TestDatabase | undefined;
let store: VerqStore | undefined;
afterEach(async () => {
  await store?.close();
  await database?.dispose();
  store = undefined;
  database = undefined;
});

async function open(engine: "sqlite" | "postgres"): Promise<{ store: VerqStore; queue: JobQueue }> {
  database = await createTestDatabase(engine);
  store = await (engine === "sqlite" ? database.open({ busyTimeoutMs: STALL_MS }) : database.open());
  return { store, queue: new JobQueue(store, { clock: new ManualClock(1_700_000_000_000) }) };
}

const jobIds = async (s: VerqStore) => (await s.db.selectFrom("jobs").select("id").orderBy("id").execute()).map((r) => r.id);

describe("[sqlite] a store call inside store.transaction without its trx", () => {
  it("a script that enqueues without { trx } ends with VERQ_NESTED_TRANSACTION, not with exit 13 and nothing said", async () => {
    database = await createTestDatabase("sqlite");
    const child = runTsChild(helperScript("enqueue-without-trx.ts"), [database.db]);
    const exit = await child.exited();
    expect({ exit, stdout: child.stdout() }).toEqual({
      exit: 0,
      stdout: expect.stringMatching(/^caught VERQ_NESTED_TRANSACTION: .*\{ trx \}/) as string,
    });
  });

  it("enqueue without { trx }: VERQ_NESTED_TRANSACTION, not a wait for ever; the message says to pass { trx }; the transaction's own writes roll back", async () => {
    const { store, queue } = await open("sqlite");
    await sql`create table orders (id text primary key)`.execute(store.db);
    let message = "";
    const failed = store.transaction(async (trx) => {
      await sql`insert into orders (id) values ('o-1')`.execute(trx);
      try {
        await queue.enqueue({ id: "charge-o-1", payload: { order: "o-1" } });
      } catch (error) {
        message = (error as Error).message;
        throw error;
      }
    });
    expect(await codeOf(failed)).toBe("VERQ_NESTED_TRANSACTION");
    expect(message).toContain("{ trx }");
    expect(message).toContain("queue.enqueue(input, { trx })");
    expect((await sql<{ n: number }>`select count(*) as n from orders`.execute(store.db)).rows[0]?.n).toBe(0);
    expect(await jobIds(store)).toEqual([]);
    // The store is whole: the same enqueue with { trx } commits.
    await store.transaction((trx) => queue.enqueue({ id: "charge-o-1", payload: { order: "o-1" } }, { trx }));
    expect(await jobIds(store)).toEqual(["charge-o-1"]);
  });

  it("a read through store.db, a service read and a nested store.transaction inside work fail the same way", async () => {
    const { store, queue } = await open("sqlite");
    await queue.enqueue({ id: "a", payload: 1 });
    const inside = (call: () => Promise<unknown>) =>
      codeOf(
        store.transaction(async () => {
          await call();
        }),
      );
    expect(await inside(() => store.db.selectFrom("jobs").selectAll().execute())).toBe("VERQ_NESTED_TRANSACTION");
    expect(await inside(() => queue.get("a"))).toBe("VERQ_NESTED_TRANSACTION");
    expect(await inside(() => queue.stats())).toBe("VERQ_NESTED_TRANSACTION");
    expect(await inside(() => store.transaction(() => Promise.resolve()))).toBe("VERQ_NESTED_TRANSACTION");
    expect(await jobIds(store)).toEqual(["a"]);
  });

  it("independent transactions of other async flows wait for the connection and succeed, in order", async () => {
    const { store, queue } = await open("sqlite");
    let entered!: () => void;
    const inWork = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const order: string[] = [];
    const first = store.transaction(async (trx) => {
      entered();
      await gate;
      await queue.enqueue({ id: "first", payload: 1 }, { trx });
      order.push("first");
    });
    await inWork;
    // Started while `first` holds the connection, from flows that are not inside it.
    const others = ["x", "y", "z"].map((id) => queue.enqueue({ id, payload: id }).then(() => order.push(id)));
    const read = queue.stats().then((s) => order.push(`stats:${s.total}`));
    release();
    await Promise.all([first, ...others, read]);
    expect(order[0]).toBe("first");
    expect(
      order
        .slice(1)
        .filter((o) => !o.startsWith("stats:"))
        .sort(),
    ).toEqual(["x", "y", "z"]);
    expect(order.filter((o) => o.startsWith("stats:"))).toHaveLength(1);
    expect(await jobIds(store)).toEqual(["first", "x", "y", "z"]);
  });

  it("a waiter whose holder runs statements waits past the stall time and succeeds", async () => {
    const { store, queue } = await open("sqlite");
    let entered!: () => void;
    const inWork = new Promise<void>((resolve) => (entered = resolve));
    const first = store.transaction(async (trx) => {
      entered();
      // Busy for three stall times, one statement every 50 ms: progress, not a deadlock.
      const until = Date.now() + 3 * STALL_MS;
      while (Date.now() < until) {
        await sql`select 1`.execute(trx);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await queue.enqueue({ id: "slow", payload: 1 }, { trx });
    });
    await inWork;
    await queue.enqueue({ id: "waiting", payload: 2 });
    await first;
    expect(await jobIds(store)).toEqual(["slow", "waiting"]);
  });

  it("what a flow started inside work does after work ended is outside: it succeeds", async () => {
    const { store, queue } = await open("sqlite");
    let committed!: () => void;
    const afterCommit = new Promise<void>((resolve) => (committed = resolve));
    let later: Promise<unknown> = Promise.resolve();
    await store.transaction(async (trx) => {
      await queue.enqueue({ id: "inside", payload: 1 }, { trx });
      later = (async () => {
        await afterCommit;
        return queue.enqueue({ id: "after", payload: 2 });
      })();
    });
    committed();
    await later;
    expect(await jobIds(store)).toEqual(["after", "inside"]);
  });
});

describe.skipIf(!(await engineAvailable("postgres")))("[postgres] a store call inside store.transaction without its trx", () => {
  it("takes another connection of the pool: it succeeds and commits on its own, whatever the transaction does after", async () => {
    const { store, queue } = await open("postgres");
    const failed = store.transaction(async () => {
      await queue.enqueue({ id: "beside", payload: 1 });
      throw new Error("the transaction changes its mind");
    });
    await expect(failed).rejects.toThrow("changes its mind");
    expect(await jobIds(store)).toEqual(["beside"]);
  });
});
