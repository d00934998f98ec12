import { existsSync } from "node:fs";
import { admin, type TestDatabase } from "@verq/testing";

/**
 * What a command left on a test database that it was not to touch: the SQLite file if it now
 * exists, or the tables now in the test's PostgreSQL schema. `[]` when nothing was created.
 */
export async function leftBehind(database: TestDatabase): Promise<string[]> {
  if (database.schema === null) return existsSync(database.db) ? [database.db] : [];
  const { rows } = await admin(`select tablename from pg_tables where schemaname = '${database.schema}' order by tablename`);
  return rows.map((row) => String(row.tablename));
}
