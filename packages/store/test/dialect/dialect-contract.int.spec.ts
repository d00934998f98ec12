import fs from "node:fs";
import { ENGINES, createTestDatabase, engineAvailable, rawSql, type Engine, type TestDatabase } from "@verq/testing";
import { sql } from "kysely";
import { describe } from "vitest";
import type { VerqStore } from "../../src/index.ts";
import { dialectContract, type DialectEngine } from "./dialect-contract.ts";

/** The bytes of one page of a SQLite file (SQLite's default page size). */
const PAGE = 4096;

/**
 * SQLite: room is the file's `max_page_count`, set on the store's own (only) connection; damage
 * is every page after the first (the schema's) overwritten, as in corrupt-database.int.spec.ts.
 */
const sqlite: DialectEngine = {
  name: "sqlite",
  create: () => createTestDatabase("sqlite"),
  async fill(_database: TestDatabase, store: VerqStore) {
    const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(store.db);
    await sql.raw(`pragma max_page_count = ${Number(rows[0]?.page_count) + 4}`).execute(store.db);
  },
  damage(database: TestDatabase) {
    const fd = fs.openSync(database.db, "r+");
    try {
      const pages = fs.fstatSync(fd).size / PAGE;
      for (let page = 1; page < pages; page++) fs.writeSync(fd, Buffer.alloc(PAGE, 0x5a), 0, PAGE, page * PAGE);
    } finally {
      fs.closeSync(fd);
    }
    return Promise.resolve();
  },
};

/**
 * PostgreSQL: a test cannot fill the shared server's disk, so a trigger on `events` counts a
 * quota of rows down and past it raises the server's own `disk_full` (SQLSTATE 53100), as in
 * database-full.int.spec.ts. No damage: the server's files are not the test's to break.
 */
const postgres: DialectEngine = {
  name: "postgres",
  create: () => createTestDatabase("postgres"),
  async fill(database: TestDatabase) {
    await rawSql(database, "create table disk_quota (events_left integer)");
    await rawSql(database, "insert into disk_quota values (5)");
    await rawSql(
      database,
      `create function disk_quota_take() returns trigger language plpgsql as $$
      begin
        update disk_quota set events_left = events_left - 1;
        if exists (select 1 from disk_quota where events_left < 0) then
          raise exception 'could not extend file: No space left on device' using errcode = 'disk_full';
        end if;
        return new;
      end $$`,
    );
    await rawSql(database, "create trigger disk_quota before insert on events for each row execute function disk_quota_take()");
  },
};

/** Every dialect, by the engine it runs on. */
const DIALECTS: Readonly<Record<Engine, DialectEngine>> = { sqlite, postgres };

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] the dialect contract`, () => {
    dialectContract(DIALECTS[engine]);
  });
}
