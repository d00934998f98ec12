import pg from "pg";
import type { TestDatabase } from "./test-database.ts";

/**
 * Takes the write lock of `database` on another connection and holds it until the returned
 * `release` is called: on SQLite a `BEGIN IMMEDIATE` (WAL readers go on, every writer waits); on
 * PostgreSQL a transaction that locks the event log and the ledger in EXCLUSIVE mode (readers go
 * on; every INSERT, UPDATE or DELETE of them waits, even one that would change no row). A test
 * shows with it that a path reads only: it answers while the lock is held.
 */
export async function holdWriteLock(database: TestDatabase): Promise<() => Promise<void>> {
  if (database.engine === "sqlite") {
    const store = await database.open();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holding = store.transaction(async () => {
      locked();
      await released;
    });
    await Promise.race([isLocked, holding]);
    return async () => {
      release();
      await holding;
      await store.close();
    };
  }
  const client = new pg.Client({ connectionString: database.db });
  client.on("error", () => {});
  await client.connect();
  await client.query("begin");
  await client.query("lock table events, ledger in exclusive mode");
  return async () => {
    await client.query("commit");
    await client.end();
  };
}
