import type { VerqStore } from "@verq/store";
import { rawSql, type TestDatabase } from "@verq/testing";
import { sql } from "kysely";

/** Room on a database's disk, as a test controls it: see {@link diskOf}. */
export interface Disk {
  /** Leaves room for a little more: a few pages, or a few events. */
  tighten(): Promise<void>;
  /** Gives the room back. */
  free(): Promise<void>;
}

/**
 * The room on `database`'s disk, which `store` writes to. SQLite: the file's `max_page_count`, set
 * on the store's own connection through `store.db` (one connection on SQLite: the pragma lasts as
 * long as the store, and binds every write it makes). PostgreSQL: a test cannot fill the shared
 * server's disk, so a trigger on `events` in the test's schema counts a quota of event rows down
 * and, past it, raises the server's own `disk_full` error (SQLSTATE 53100), as a write that cannot
 * extend a file does: the statement fails and the transaction is rolled back. Call it once per
 * database, before the room is needed.
 */
export async function diskOf(database: TestDatabase, store: VerqStore): Promise<Disk> {
  if (database.engine === "sqlite") {
    const pragma = async (text: string) => (await sql.raw(`pragma ${text}`).execute(store.db)).rows as Record<string, number>[];
    return {
      async tighten() {
        const pages = (await pragma("page_count"))[0]!.page_count!;
        await pragma(`max_page_count = ${pages + 4}`);
      },
      async free() {
        await pragma("max_page_count = 1073741823");
      },
    };
  }
  await rawSql(database, "create table disk_quota (events_left integer)");
  await rawSql(database, "insert into disk_quota values (null)");
  await rawSql(
    database,
    `create function disk_quota_take() returns trigger language plpgsql as $$
    begin
      update disk_quota set events_left = events_left - 1 where events_left is not null;
      if exists (select 1 from disk_quota where events_left < 0) then
        raise exception 'could not extend file: No space left on device' using errcode = 'disk_full';
      end if;
      return new;
    end $$`,
  );
  await rawSql(database, "create trigger disk_quota before insert on events for each row execute function disk_quota_take()");
  return {
    tighten: () => rawSql(database, "update disk_quota set events_left = 40").then(() => undefined),
    free: () => rawSql(database, "update disk_quota set events_left = null").then(() => undefined),
  };
}
