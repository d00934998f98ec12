import { isVerqError } from "@verq/core";
import { createPooledTestDatabase, engineAvailable, pgbouncerAvailable, type PooledTestDatabase } from "@verq/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type PostgresStoreOptions } from "../src/index.ts";

/** What an open that must fail threw. */
async function openError(options: PostgresStoreOptions): Promise<Error> {
  try {
    const store = await openStore(options);
    await store.close();
  } catch (error) {
    return error as Error;
  }
  throw new Error("the open succeeded");
}

describe.skipIf(!pgbouncerAvailable() || !(await engineAvailable("postgres")))("opening a store through PgBouncer", () => {
  let database: PooledTestDatabase;

  beforeAll(async () => {
    database = await createPooledTestDatabase();
  });
  afterAll(async () => {
    await database?.dispose();
  });

  it("a schema, by the option or in the URL, is VERQ_STORE_UNREACHABLE saying the pooler refuses it and what to do instead, with nothing created", async () => {
    const inUrl = new URL(database.db);
    inUrl.searchParams.set("options", "-c search_path=x");
    for (const options of [
      { url: database.db, schema: "x", preparedStatements: false },
      { url: inUrl.toString(), preparedStatements: false },
    ]) {
      const error = await openError(options);
      expect(isVerqError(error, "VERQ_STORE_UNREACHABLE"), String(error)).toBe(true);
      expect(error.message).toContain("PgBouncer");
      expect(error.message).toContain("startup parameter options");
      expect(error.message).toContain("schema option (or ?options= in the URL)");
      expect(error.message).toContain("a database of its own");
      expect(error.message).toContain("alter role <user> set search_path = <schema>");
    }
    const direct = new pg.Client({ connectionString: database.direct });
    await direct.connect();
    try {
      const { rows } = await direct.query<{ n: number }>(
        "select count(*)::int as n from pg_namespace where nspname = 'x' union all select count(*)::int from pg_tables where schemaname = 'public'",
      );
      expect(rows.map((row) => row.n)).toEqual([0, 0]);
    } finally {
      await direct.end();
    }
    // The same database through the same pooler opens without the schema: the refusal was the schema's.
    const store = await database.open();
    await store.close();
  });
});
