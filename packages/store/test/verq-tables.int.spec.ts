import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { isVerqError } from "@verq/core";
import { afterEach, describe, expect, it } from "vitest";
import { VERQ_MIGRATION_TABLES, VERQ_TABLES, openStore, type VerqStore } from "../src/index.ts";
import { ENGINES, TEST_POSTGRES_URL, admin, createTestDatabase, engineAvailable, rawSql, type TestDatabase } from "@verq/testing";
import { REPO_ROOT } from "./helpers/run-ts-child.ts";

/*
 * VERQ_TABLES names every table verq creates, on both engines; docs/embedding.md lists them from
 * it, and a service's table of the same name is refused before any migration runs
 * (`VERQ_TABLE_CONFLICT`), never a raw "already exists" half-way through a migration.
 */

/** The names docs/embedding.md lists between `<!-- verq:tables -->` and `<!-- /verq:tables -->`, in order. */
function documentedTables(): { tables: string[]; bookkeeping: string[] } {
  const text = fs.readFileSync(path.join(REPO_ROOT, "docs", "embedding.md"), "utf8");
  const block = /<!-- verq:tables -->\n([\s\S]*?)<!-- \/verq:tables -->/.exec(text)?.[1];
  if (block === undefined) throw new Error("docs/embedding.md has no verq:tables block");
  const names = (line: string | undefined) => [...(line ?? "").matchAll(/`([a-z_]+)`/g)].map((m) => m[1] as string);
  const lines = block.split("\n");
  return {
    tables: names(lines.find((l) => l.startsWith("- verq's tables:"))),
    bookkeeping: names(lines.find((l) => l.startsWith("- its migration bookkeeping:"))),
  };
}

/** The tables and views of a test database, by name (on PostgreSQL, of its schema only). */
async function tablesOf(database: TestDatabase): Promise<string[]> {
  const rows =
    database.engine === "sqlite"
      ? await rawSql(database, "select name from sqlite_master where type in ('table', 'view') and name not like 'sqlite_%'")
      : await rawSql(database, "select table_name as name from information_schema.tables where table_schema = current_schema()");
  return rows.map((r) => String(r.name)).sort();
}

async function openFailure(open: () => Promise<VerqStore>): Promise<{ code: string; message: string }> {
  try {
    const store = await open();
    await store.close();
  } catch (error) {
    if (isVerqError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("the store opened");
}

describe("VERQ_TABLES in the docs", () => {
  it("docs/embedding.md lists exactly VERQ_TABLES and the migration bookkeeping tables, in the constant's order", () => {
    expect(documentedTables()).toEqual({ tables: [...VERQ_TABLES], bookkeeping: [...VERQ_MIGRATION_TABLES] });
  });
});

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] verq's tables`, () => {
    const databases: TestDatabase[] = [];
    afterEach(async () => {
      for (const database of databases.splice(0)) await database.dispose();
    });
    const fresh = async () => {
      const database = await createTestDatabase(engine);
      databases.push(database);
      return database;
    };

    it("a freshly migrated store has exactly VERQ_TABLES and the migration bookkeeping tables", async () => {
      const database = await fresh();
      await (await database.open()).close();
      expect(await tablesOf(database)).toEqual([...VERQ_TABLES, ...VERQ_MIGRATION_TABLES].sort());
    });

    it("a service table named like one of verq's before the first open: VERQ_TABLE_CONFLICT naming it, checked before any migration, nothing created", async () => {
      const database = await fresh();
      await rawSql(database, "create table schedules (id integer primary key, cron text)");
      await rawSql(database, "create table orders (id text primary key)");
      const failure = await openFailure(() => database.open());
      expect(failure.code).toBe("VERQ_TABLE_CONFLICT");
      expect(failure.message).toMatch(/\bschedules\b/);
      expect(failure.message).not.toMatch(/\borders\b/);
      expect(await tablesOf(database)).toEqual(["orders", "schedules"]);
    });

    it("each of VERQ_TABLES, and a view of such a name, is found; several at once are all named", async () => {
      for (const table of VERQ_TABLES) {
        const database = await fresh();
        await rawSql(database, `create table ${table} (x integer)`);
        const failure = await openFailure(() => database.open());
        expect([table, failure.code]).toEqual([table, "VERQ_TABLE_CONFLICT"]);
        expect(failure.message).toContain(table);
        expect(await tablesOf(database)).toEqual([table]);
      }
      const database = await fresh();
      await rawSql(database, "create view jobs as select 1 as x");
      await rawSql(database, "create table ledger (x integer)");
      const failure = await openFailure(() => database.open());
      expect(failure.code).toBe("VERQ_TABLE_CONFLICT");
      expect(failure.message).toContain("jobs, ledger");
    });

    it("a store verq made opens again (its own tables are no conflict)", async () => {
      const database = await fresh();
      await (await database.open()).close();
      const again = await database.open();
      expect(again.appliedMigrations).toEqual([]);
      await again.close();
    });
  });
}

describe.skipIf(!(await engineAvailable("postgres")))("[postgres] verq's tables in a schema of their own", () => {
  const schemas: string[] = [];
  afterEach(async () => {
    for (const schema of schemas.splice(0)) await admin(`drop schema if exists ${schema} cascade`);
  });

  it("a table of that name in the schema the store opens (the schema option) is named with that schema, and the schema stays as it was", async () => {
    const schema = `verq_tables_${process.pid}_${randomUUID().replaceAll("-", "").slice(0, 8)}`;
    schemas.push(schema);
    await admin(`create schema ${schema}`);
    await admin(`create table ${schema}.queues (name text)`);
    const failure = await openFailure(() => openStore({ url: TEST_POSTGRES_URL, schema }));
    expect(failure.code).toBe("VERQ_TABLE_CONFLICT");
    expect(failure.message).toContain("queues");
    expect(failure.message).toContain(schema);
    const { rows } = await admin(`select tablename from pg_tables where schemaname = '${schema}'`);
    expect(rows).toEqual([{ tablename: "queues" }]);
  });
});
