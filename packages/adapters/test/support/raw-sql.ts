import Database from "better-sqlite3";
import pg from "pg";
import type { TestDatabase } from "@verq/testing";

/**
 * Runs SQL on a test's database from outside verq, on a connection of its own: better-sqlite3
 * on the SQLite file, `pg` on the PostgreSQL URL (its search path is the test's schema).
 * Parameters are written `?`; returns the rows of a query. What a test plants with it, verq
 * never saw.
 */
export async function rawSql(database: TestDatabase, text: string, params: readonly unknown[] = []): Promise<Record<string, unknown>[]> {
  if (database.engine === "sqlite") {
    const db = new Database(database.db);
    try {
      const statement = db.prepare(text);
      return statement.reader ? (statement.all(...params) as Record<string, unknown>[]) : (statement.run(...params), []);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: database.db });
  await client.connect();
  try {
    let n = 0;
    return (await client.query(text.replace(/\?/g, () => `$${++n}`), [...params])).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}
