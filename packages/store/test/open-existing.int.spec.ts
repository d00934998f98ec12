import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import Database from "better-sqlite3";
import { isVerqError } from "@verq/core";
import { afterEach, describe, expect, it } from "vitest";
import { JobQueue, openStore, type VerqStore } from "../src/index.ts";
import { TEST_POSTGRES_URL, admin, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import { makeTempDir, type TempDir } from "./helpers/temp-dir.ts";

/*
 * `create: false` opens only a store that a write already made, as the commands that only read
 * do: a SQLite file that is not there, or a database without verq's tables, is refused with a
 * code, and nothing is created or changed. Without it (the default) an open makes the store.
 */

/** The code an open fails with (the test fails if it opens). */
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

const sha = (file: string) => createHash("sha256").update(fs.readFileSync(file)).digest("hex");

describe("[sqlite] openStore with create: false", () => {
  let dir: TempDir;
  afterEach(() => dir.remove());

  it("a file that does not exist: VERQ_FILE_NOT_FOUND, naming it, and no file is created", async () => {
    dir = makeTempDir("open-existing");
    const path = dir.file("q.sqlit");
    const failure = await openFailure(() => openStore({ path, create: false }));
    expect(failure.code).toBe("VERQ_FILE_NOT_FOUND");
    expect(failure.message).toContain(path);
    expect(fs.readdirSync(dir.path)).toEqual([]);
  });

  it("a SQLite file of another program (no verq tables): VERQ_STORE_NOT_INITIALIZED, and the file is left byte for byte as it was", async () => {
    dir = makeTempDir("open-existing");
    const path = dir.file("service.db");
    const other = new Database(path);
    other.exec("create table orders (id text primary key)");
    other.close();
    const before = sha(path);
    const failure = await openFailure(() => openStore({ path, create: false }));
    expect(failure.code).toBe("VERQ_STORE_NOT_INITIALIZED");
    expect(failure.message).toContain(path);
    expect(failure.message).toContain("verq init --db");
    expect(sha(path)).toBe(before);
    expect(fs.readdirSync(dir.path)).toEqual(["service.db"]);
  });

  it("a store that a write made opens and reads; the open that made it lists the migrations it applied, a later one none", async () => {
    dir = makeTempDir("open-existing");
    const path = dir.file("verq.sqlite");
    const made = await openStore({ path });
    expect(made.appliedMigrations[0]).toBe("001-initial");
    await new JobQueue(made).enqueue({ id: "j1", payload: 1 });
    await made.close();
    const reader = await openStore({ path, create: false });
    try {
      expect(reader.appliedMigrations).toEqual([]);
      expect((await new JobQueue(reader).get("j1"))?.state).toBe("pending");
    } finally {
      await reader.close();
    }
  });
});

describe.skipIf(!(await engineAvailable("postgres")))("[postgres] openStore with create: false", () => {
  const databases: TestDatabase[] = [];
  const schemas: string[] = [];
  afterEach(async () => {
    for (const database of databases.splice(0)) await database.dispose();
    for (const schema of schemas.splice(0)) await admin(`drop schema if exists ${schema} cascade`);
  });

  const schemaExists = async (schema: string) =>
    (await admin(`select count(*)::int as n from pg_namespace where nspname = '${schema}'`)).rows[0]?.n === 1;
  const tablesIn = async (schema: string) =>
    (await admin(`select tablename from pg_tables where schemaname = '${schema}'`)).rows.map((r) => r.tablename);

  it("a schema (the schema option) that does not exist: VERQ_STORE_NOT_INITIALIZED, and the schema is not created", async () => {
    const schema = `verq_ro_${process.pid}_${randomUUID().replaceAll("-", "").slice(0, 8)}`;
    schemas.push(schema);
    const failure = await openFailure(() => openStore({ url: TEST_POSTGRES_URL, schema, create: false }));
    expect(failure.code).toBe("VERQ_STORE_NOT_INITIALIZED");
    expect(failure.message).toContain(schema);
    expect(failure.message).not.toContain("postgres://");
    expect(await schemaExists(schema)).toBe(false);
  });

  it("an empty schema: VERQ_STORE_NOT_INITIALIZED, and no table is created in it", async () => {
    const database = await createTestDatabase("postgres");
    databases.push(database);
    const schema = database.schema!;
    const failure = await openFailure(() => openStore({ url: TEST_POSTGRES_URL, schema, create: false }));
    expect(failure.code).toBe("VERQ_STORE_NOT_INITIALIZED");
    expect(failure.message).toContain(schema);
    expect(failure.message).toContain("verq init --db");
    expect(await tablesIn(schema)).toEqual([]);
    // The same through the URL's search path, as `--db` gives it.
    const byUrl = await openFailure(() => openStore({ url: database.db, create: false }));
    expect(byUrl.code).toBe("VERQ_STORE_NOT_INITIALIZED");
    expect(await tablesIn(schema)).toEqual([]);
  });

  it("a store that a write made opens and reads; only the open that made it applied migrations", async () => {
    const database = await createTestDatabase("postgres");
    databases.push(database);
    const made = await database.open();
    expect(made.appliedMigrations[0]).toBe("001-initial");
    await new JobQueue(made).enqueue({ id: "j1", payload: 1 });
    await made.close();
    const reader = await openStore({ url: database.db, create: false });
    try {
      expect(reader.appliedMigrations).toEqual([]);
      expect((await new JobQueue(reader).get("j1"))?.state).toBe("pending");
    } finally {
      await reader.close();
    }
  });
});
