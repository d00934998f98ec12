import { randomUUID } from "node:crypto";
import { isVerqError } from "@verq/core";
import { TEST_POSTGRES_URL, admin, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JobQueue, JobWorker, openStore, type PostgresStoreOptions, type VerqStore } from "../src/index.ts";
import { until } from "./helpers/until.ts";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `url` with an `application_name` of its own, so that the server's activity view tells its connections apart. */
function named(url: string, application: string): string {
  const withName = new URL(url);
  withName.searchParams.set("application_name", application);
  return withName.toString();
}

/** A name no other test run uses at the same time. */
const unique = (prefix: string) => `${prefix}_${process.pid}_${randomUUID().replaceAll("-", "").slice(0, 12)}`;

/**
 * The connections named `application` on the server, and those of them whose last statement was
 * a LISTEN: a listening connection's is, from its start until it asks after the server's
 * recovery 5 s later, so the tests look within that time.
 */
async function connections(application: string): Promise<{ all: number; listening: number }> {
  const { rows } = await admin(`select count(*)::int as all, (count(*) filter (where query ilike 'listen %'))::int as listening
    from pg_stat_activity where application_name = '${application}'`);
  return rows[0] as { all: number; listening: number };
}

/** What an open that must fail threw. */
async function openError(options: PostgresStoreOptions): Promise<unknown> {
  try {
    const store = await openStore(options);
    await store.close();
  } catch (error) {
    return error;
  }
  throw new Error(`opening with ${JSON.stringify({ ...options, url: "(url)" })} succeeded`);
}

describe.skipIf(!(await engineAvailable("postgres")))("PostgreSQL wake-ups' listenUrl, and connections found read-only", () => {
  let database: TestDatabase;
  const stores: VerqStore[] = [];
  const workers: JobWorker[] = [];
  const open = async (options: PostgresStoreOptions) => {
    const store = await openStore(options);
    stores.push(store);
    return store;
  };
  const tablesIn = async (schema: string) =>
    Number((await admin(`select count(*)::int as n from pg_tables where schemaname = '${schema}'`)).rows[0]?.n);

  beforeEach(async () => {
    database = await createTestDatabase("postgres");
  });
  afterEach(async () => {
    for (const worker of workers.splice(0)) await worker.stop();
    for (const store of stores.splice(0)) await store.close();
    await database.dispose();
  });

  it("a listenUrl that is neither a postgres:// URL nor null, and a reconnectMs that is not a whole number of ms, are VERQ_INVALID_ARGUMENT with nothing created", async () => {
    const application = unique("verq_refused");
    const url = named(database.db, application);
    const refused: [PostgresStoreOptions, string][] = [
      [{ url, listenUrl: "not a url" }, "listenUrl"],
      [{ url, listenUrl: "postgres://[::1" }, "listenUrl"],
      [{ url, listenUrl: 42 as unknown as string }, "listenUrl"],
      [{ url, reconnectMs: -1 }, "reconnectMs"],
      [{ url, reconnectMs: 1.5 }, "reconnectMs"],
    ];
    for (const [options, option] of refused) {
      const error = await openError(options);
      expect(isVerqError(error, "VERQ_INVALID_ARGUMENT"), `${option}: ${String(error)}`).toBe(true);
      expect((error as Error).message).toContain(option);
    }
    expect(await tablesIn(database.schema!)).toBe(0);
    // Refused before a pool opened: no connection of theirs was left behind.
    expect((await connections(application)).all).toBe(0);
    // The same URL with valid values of both options opens and creates the tables: the refusals were the options'.
    await open({ url, listenUrl: null, reconnectMs: 0 });
    expect(await tablesIn(database.schema!)).toBeGreaterThan(0);
  });

  it("with listenUrl null nothing listens: the store's own commits wake its own worker at once, and another store's jobs are found by polling", async () => {
    const application = unique("verq_nolisten");
    const store = await open({ url: named(database.db, application), listenUrl: null });
    expect(store.dialect.wakeups.reachesOwnSubscribers).toBe(false);
    const queue = new JobQueue(store);
    let woken = 0;
    const unsubscribe = queue.onEnqueued(() => woken++);
    const done: string[] = [];
    const sender = (job: { id: string }) => {
      done.push(job.id);
      return true;
    };
    // A minute between polls: within this test only a wake-up can start it again.
    const own = new JobWorker(queue, { owner: "own", idleMs: 60_000, sender, logger: null });
    workers.push(own);
    own.start();
    await until(() => own.report.claimTransactions > 0, "the worker's first, empty, claim");

    await expect(
      store.transaction(async (trx) => {
        await queue.enqueue({ id: "rolled-back", payload: 1 }, { trx });
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(woken).toBe(0);
    await queue.enqueue({ id: "own", payload: 1 });
    // Woken before the enqueue returned, by the commit itself: no notification travelled.
    expect(woken).toBe(1);
    await until(() => done.includes("own"), "the own worker to do the job, long before its next poll", 10_000);

    // The store's connections carry the name, and none of them listens.
    const seen = await connections(application);
    expect(seen.all).toBeGreaterThan(0);
    expect(seen.listening).toBe(0);

    // Another store that listens nowhere hears nothing of this store's commits, and still does its jobs by polling.
    const other = await open({ url: database.db, listenUrl: null });
    const otherQueue = new JobQueue(other);
    let heard = 0;
    const unhear = otherQueue.onEnqueued(() => heard++);
    // A queue of its own, which the first store's worker (woken by the enqueue) does not claim from.
    const polling = new JobWorker(otherQueue, { owner: "polling", queues: ["elsewhere"], idleMs: 50, sender, logger: null });
    workers.push(polling);
    polling.start();
    await until(() => polling.report.claimTransactions > 0, "the polling worker's first, empty, claim");
    await queue.enqueue({ id: "elsewhere", payload: 2, queue: "elsewhere" });
    await until(() => done.includes("elsewhere"), "the polling worker to find the other store's job");
    expect(heard).toBe(0);
    expect(done.filter((id) => id === "elsewhere")).toHaveLength(1);
    unhear();
    unsubscribe();
  });

  it("with listenUrl a URL of its own, the store listens there and is woken by another store's commits", async () => {
    const pool = unique("verq_pool");
    const listener = unique("verq_listener");
    const producer = await open({ url: database.db });
    // The listenUrl reaches the same database directly, with a name the store's own URL does not have.
    const consumer = await open({ url: named(database.db, pool), listenUrl: named(TEST_POSTGRES_URL, listener) });
    expect(consumer.dialect.wakeups.reachesOwnSubscribers).toBe(true);
    let woken = 0;
    const unsubscribe = new JobQueue(consumer).onEnqueued(() => woken++);
    await until(
      async () => (await connections(listener)).listening === 1,
      "one LISTEN connection named as the listenUrl names it",
      5_000,
    );
    expect(await connections(listener)).toEqual({ all: 1, listening: 1 });
    const ofPool = await connections(pool);
    expect(ofPool.all).toBeGreaterThan(0);
    expect(ofPool.listening).toBe(0);

    await new JobQueue(producer).enqueue({ id: "heard", payload: 1 });
    await until(() => woken > 0, "the consumer to be woken by the producer's commit", 5_000);
    expect(woken).toBe(1);
    unsubscribe();
  });

  it("a connection found read-only leaves the pool: an enqueue that meets a read-only server succeeds on a new connection once it takes writes again", async () => {
    const name = unique("verq_ro");
    await admin(`create database ${name}`);
    const url = new URL(TEST_POSTGRES_URL);
    url.pathname = `/${name}`;
    const sessions = async () =>
      Number((await admin(`select sessions from pg_stat_database where datname = '${name}'`)).rows[0]?.sessions);
    try {
      const store = await open({ url: url.toString(), poolSize: 2, reconnectMs: 20_000 });
      const queue = new JobQueue(store);
      await queue.enqueue({ id: "before", payload: 1 });

      // Every connection opened from now on is read-only, as one that a failover left on a replica.
      await admin(`alter database ${name} set default_transaction_read_only = on`);
      await admin(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}'`);
      const probe = new pg.Client({ connectionString: url.toString() });
      await probe.connect();
      try {
        const { rows } = await probe.query<{ transaction_read_only: string }>("show transaction_read_only");
        expect(rows[0]?.transaction_read_only).toBe("on");
      } finally {
        await probe.end();
      }
      const opened = await sessions();

      let settled = false;
      const during = queue.enqueue({ id: "during", payload: 2 }).finally(() => (settled = true));
      await sleep(1_000);
      // Still trying: each try met SQLSTATE 25006 on a connection the pool then closed.
      expect(settled).toBe(false);
      await admin(`alter database ${name} reset default_transaction_read_only`);
      expect((await during).created).toBe(true);

      // A connection per try, not the pool's two kept and reused read-only.
      expect((await sessions()) - opened).toBeGreaterThanOrEqual(3);
      expect((await queue.list("pending")).map((job) => job.id).sort()).toEqual(["before", "during"]);
      expect((await queue.history("during")).map((event) => event.type)).toEqual(["job.enqueued"]);
      expect(await store.countEvents()).toBe(2);
    } finally {
      for (const store of stores.splice(0)) await store.close();
      await admin(`drop database if exists ${name} with (force)`);
    }
  });
});
