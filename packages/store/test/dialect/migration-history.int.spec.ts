import fs from "node:fs";
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";
import { ManualClock } from "@verq/core";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";
import { JobQueue, checkStore, type VerqStore } from "../../src/index.ts";
import { dumpPostgresSchema, dumpSqliteSchema, type SchemaDump } from "./schema-dump.ts";

const Database = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;

/*
 * The fixtures are the schema migrations 001–010 made before their engine-specific SQL moved
 * into migrations/<engine>/: written once by that code, never by this one. A new migration adds
 * its objects (and its name) to them; nothing that 001–010 wrote may change, since a store made
 * by an older release must open and migrate as it always did.
 */
const fixture = <T>(name: string): T => JSON.parse(fs.readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8")) as T;
const dumpOf = (engine: string, store: VerqStore): Promise<SchemaDump> =>
  engine === "sqlite" ? dumpSqliteSchema(store.db) : dumpPostgresSchema(store.db);

const opened: { store?: VerqStore; database: TestDatabase }[] = [];
afterEach(async () => {
  for (const { store, database } of opened.splice(0).reverse()) {
    await store?.close();
    await database.dispose();
  }
});

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] the migration history`, () => {
    it("makes, on a fresh database, the schema and migration names the history always made", async () => {
      const database = await createTestDatabase(engine);
      const store = await database.open();
      opened.push({ store, database });
      expect(await dumpOf(engine, store)).toEqual(fixture<SchemaDump>(`schema-${engine}.json`));
    });
  });
}

describe("[sqlite] a store made by an older release", () => {
  const history = fixture<Record<string, SchemaDump>>("schema-sqlite-history.json");
  const latest = fixture<SchemaDump>("schema-sqlite.json");

  /** A file holding exactly `dump`'s schema and migration bookkeeping, as that release left it, with one job's events in it. */
  async function fileAt(dump: SchemaDump): Promise<TestDatabase> {
    const database = await createTestDatabase("sqlite");
    opened.push({ database });
    const raw = new Database(database.db);
    try {
      raw.transaction(() => {
        // Tables first: an index or a trigger names them.
        const order = ["table", "index", "trigger"];
        const objects = [...dump.objects].sort((a, b) => order.indexOf(a.split(" ")[0]!) - order.indexOf(b.split(" ")[0]!));
        for (const line of objects) raw.exec(line.slice(line.indexOf(": ") + 2));
        for (const name of dump.migrations)
          raw.prepare("insert into verq_migrations (name, timestamp) values (?, ?)").run(name, "2024-01-01T00:00:00.000Z");
        raw.prepare("insert into verq_migrations_lock (id, is_locked) values ('migration_lock', 0)").run();
        // Events written before the upgrade keep their positions, and the next one comes after them.
        raw
          .prepare(
            "insert into events (stream_type, stream_id, version, type, data, at_ms) values ('store', 'old', 1, 'store.old', '{}', 1)",
          )
          .run();
      })();
    } finally {
      raw.close();
    }
    return database;
  }

  for (const [last, dump] of [...Object.entries(history), ["015-job-counts-index", latest] as const]) {
    it(`opens a file migrated up to ${last} and brings it to the schema of the whole history`, async () => {
      const database = await fileAt(dump);
      const store = await database.open();
      opened.push({ store, database });
      expect(await dumpSqliteSchema(store.db)).toEqual(latest);
      const queue = new JobQueue(store, { clock: new ManualClock() });
      await queue.enqueue({ id: "after", payload: {} });
      const claimed = await queue.claim("w");
      expect(claimed?.id).toBe("after");
      expect(await queue.finish("after", claimed!.token, "ok")).toBe(true);
      const positions = (await store.db.selectFrom("events").select(["position", "stream_id"]).orderBy("position").execute()).map(
        (e) => e.stream_id,
      );
      expect(positions[0]).toBe("old");
      expect((await checkStore(store)).findings).toEqual([]);
    });
  }
});
