import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import type { TestDatabase } from "./test-database.ts";

// better-sqlite3 as the store loads it (the store depends on it; this package does not).
const Database = createRequire(createRequire(import.meta.url).resolve("@verq/store"))("better-sqlite3") as typeof BetterSqlite3;

/**
 * Runs one SQL statement on a test's database from outside verq, on a connection of its own:
 * better-sqlite3 on the SQLite file, `pg` on the PostgreSQL URL (whose search path is the test's
 * schema). Parameters are written `?` on both engines; returns the rows of a query (none for
 * other statements). A test plants with it what a buggy writer would leave behind: verq never
 * sees the statement.
 */
export async function rawSql(
  database: TestDatabase,
  text: string,
  params: readonly unknown[] = [],
): Promise<Record<string, unknown>[]> {
  if (database.engine === "sqlite") {
    const db = new Database(database.db);
    try {
      const statement = db.prepare(text);
      if (statement.reader) return statement.all(...params) as Record<string, unknown>[];
      statement.run(...params);
      return [];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: database.db });
  await client.connect();
  try {
    let n = 0;
    const result = await client.query<Record<string, unknown>>(
      text.replace(/\?/g, () => `$${++n}`),
      [...params],
    );
    return result.rows;
  } finally {
    await client.end();
  }
}
