import { readdirSync } from "node:fs";
import { ManualClock, isVerqError } from "@verq/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JobQueue, openStore, type VerqStore } from "../src/index.ts";
import { TEST_POSTGRES_URL, admin, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";

const T0 = 1_700_000_000_000;

/** What an open that must fail threw. */
async function openError(url: string): Promise<Error> {
  try {
    const store = await openStore({ url });
    await store.close();
  } catch (error) {
    return error as Error;
  }
  throw new Error(`opening ${url} succeeded`);
}

describe.skipIf(!(await engineAvailable("postgres")))("PostgreSQL store (S1)", () => {
  let database: TestDatabase;
  const stores: VerqStore[] = [];
  const open = async () => {
    const store = await database.open();
    stores.push(store);
    return store;
  };

  beforeEach(async () => {
    database = await createTestDatabase("postgres");
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await database.dispose();
  });

  it("a string that is a postgres:// or postgresql:// URL opens PostgreSQL; the path names the host, never the password", async () => {
    const url = new URL(database.db);
    url.password = "s3cret";
    url.protocol = "postgresql:";
    const store = await openStore(url.toString());
    stores.push(store);
    expect(store.dialect.name).toBe("postgres");
    expect(store.path).toBe("127.0.0.1:5432/test");
    expect(store.path).not.toContain("s3cret");
  });

  it("a refused connection is VERQ_STORE_UNREACHABLE naming the host and port, without the password", async () => {
    const error = await openError("postgres://verq:s3cret@127.0.0.1:1/verq");
    expect(isVerqError(error, "VERQ_STORE_UNREACHABLE")).toBe(true);
    expect(error.message).toContain("127.0.0.1:1/verq");
    expect(error.message).toContain("refused");
    expect(error.message).not.toContain("s3cret");
  });

  it("a malformed URL, an unknown database and an unknown user are VERQ_STORE_UNREACHABLE with the reason", async () => {
    const malformed = await openError("postgres://[::1");
    expect(isVerqError(malformed, "VERQ_STORE_UNREACHABLE")).toBe(true);
    const base = new URL(TEST_POSTGRES_URL);
    const noDb = new URL(base);
    noDb.pathname = "/verq_no_such_database";
    const missing = await openError(noDb.toString());
    expect(isVerqError(missing, "VERQ_STORE_UNREACHABLE")).toBe(true);
    expect(missing.message).toContain("verq_no_such_database");
    expect(missing.message).toContain("does not exist");
    const noUser = new URL(base);
    noUser.username = "verq_no_such_user";
    const refused = await openError(noUser.toString());
    expect(isVerqError(refused, "VERQ_STORE_UNREACHABLE")).toBe(true);
  });

  it("a user without the permission to create verq's tables gets VERQ_STORE_UNREACHABLE saying so, and nothing is created", async () => {
    const role = `verq_ro_${process.pid}`;
    await admin(`drop role if exists ${role}`);
    await admin(`create role ${role} login`);
    try {
      const url = new URL(database.db);
      url.username = role;
      const error = await openError(url.toString());
      expect(isVerqError(error, "VERQ_STORE_UNREACHABLE")).toBe(true);
      expect(error.message).toContain("permission");
      const tables = await admin(`select count(*)::int as n from pg_tables where schemaname = '${database.schema}'`);
      expect(tables.rows[0]).toEqual({ n: 0 });
    } finally {
      await admin(`drop role if exists ${role}`);
    }
  });

  it("several first opens of one fresh schema at the same instant all succeed, and migrate it once", async () => {
    const opened = await Promise.all(Array.from({ length: 6 }, () => open()));
    expect(opened).toHaveLength(6);
    const migrations = await admin(
      `select count(*)::int as n, count(distinct name)::int as names from ${database.schema}.verq_migrations`,
    );
    // Each migration of the store's folder recorded once.
    const files = readdirSync(new URL("../src/migrations/", import.meta.url)).filter((f) => /^\d{3}-.*\.ts$/.test(f));
    expect(migrations.rows[0]).toEqual({ n: files.length, names: files.length });
  });

  it("the event log is append-only on PostgreSQL too: no UPDATE, no DELETE of a job's event, no TRUNCATE", async () => {
    const store = await open();
    await new JobQueue(store).enqueue({ id: "a-1", payload: { n: 1 } });
    const table = `${database.schema}.events`;
    await expect(admin(`update ${table} set data = '{}'`)).rejects.toThrow(/VERQ_APPEND_ONLY/);
    await expect(admin(`delete from ${table}`)).rejects.toThrow(/VERQ_APPEND_ONLY/);
    await expect(admin(`truncate ${table}`)).rejects.toThrow(/VERQ_APPEND_ONLY/);
    expect(await store.countEvents()).toBe(1);
  });

  it("an enqueue wakes a worker's listener in another process's store at commit, and a rolled-back one does not", async () => {
    const producer = await open();
    const consumer = await open();
    let woken = 0;
    const heard = () => new Promise<void>((resolve) => setTimeout(resolve, 300));
    const unsubscribe = new JobQueue(consumer).onEnqueued(() => woken++);
    // The listening connection is opened at the first subscriber: give it a moment.
    await heard();
    const queue = new JobQueue(producer, { clock: new ManualClock(T0) });
    await expect(
      producer.transaction(async (trx) => {
        await queue.enqueue({ id: "rolled-back", payload: 1 }, { trx });
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    await heard();
    expect(woken).toBe(0);
    await queue.enqueue({ id: "committed", payload: 1 });
    await heard();
    expect(woken).toBe(1);
    unsubscribe();
  });

  it("claimers on four connections at once: every job claimed once, with token 1 (no claim handed out twice)", async () => {
    const store = await open();
    const clock = new ManualClock(T0);
    const queue = new JobQueue(store, { clock });
    await queue.enqueueMany(Array.from({ length: 200 }, (_, i) => ({ id: `j-${i}`, payload: i })));
    const claimers = await Promise.all(Array.from({ length: 4 }, () => open()));
    const rounds = await Promise.all(
      claimers.map(async (s, w) => {
        const q = new JobQueue(s, { clock });
        const got: string[] = [];
        for (;;) {
          const batch = await q.claimMany(`w${w}`, 7);
          if (batch.length === 0) return got;
          got.push(...batch.map((j) => `${j.id}#${j.token}`));
        }
      }),
    );
    const all = rounds.flat();
    expect(all).toHaveLength(200);
    expect(new Set(all).size).toBe(200);
    expect(all.every((claim) => claim.endsWith("#1"))).toBe(true);
  });

  it("J7: concurrent redrives on several connections never pass the rate limit", async () => {
    const store = await open();
    const clock = new ManualClock(T0);
    const limit = { max: 3, windowMs: 60_000 };
    const queue = new JobQueue(store, { clock, redriveLimit: limit });
    const ids = Array.from({ length: 8 }, (_, i) => `dead-${i}`);
    await queue.enqueueMany(ids.map((id) => ({ id, payload: 1, maxAttempts: 1 })));
    for (const job of await queue.claimMany("w", ids.length)) await queue.finish(job.id, job.token, "permanent");
    const others = await Promise.all(ids.map(() => open()));
    const results = await Promise.allSettled(
      ids.map((id, i) => new JobQueue(others[i] as VerqStore, { clock, redriveLimit: limit }).redrive(id, { note: "OPS-1" })),
    );
    const done = results.filter((r) => r.status === "fulfilled");
    const limited = results.filter((r) => r.status === "rejected" && isVerqError(r.reason, "VERQ_REDRIVE_RATE_LIMITED"));
    expect(done).toHaveLength(3);
    expect(limited).toHaveLength(5);
    expect((await queue.stats()).byState.pending).toBe(3);
  });
});
