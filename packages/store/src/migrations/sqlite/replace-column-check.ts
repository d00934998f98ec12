import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import type { ColumnCheckChange } from "../column-check-change.ts";

/**
 * Replaces the CHECK of one column, declared inline as `check (from)`, by `check (to)`: SQLite
 * cannot alter a constraint, so the table is rebuilt from its own schema text with only that
 * condition replaced, in the caller's transaction, keeping every row, column, index and trigger.
 */
export async function replaceSqliteColumnCheck(
  db: Kysely<VerqDatabase>,
  { table, column, from, to }: ColumnCheckChange,
): Promise<void> {
  // SQLite's own procedure for a constraint change (create the new table, copy, drop, rename,
  // make the indexes and triggers again), from the table's schema text as it is now, so that
  // columns other migrations added stay.
  const { rows } = await sql<{ type: string; name: string; sql: string | null }>`
      select type, name, sql from sqlite_master where tbl_name = ${table} order by type = 'table' desc`.execute(db);
  const [created, ...dependents] = rows;
  const check = `check (${from})`;
  const text = created?.type === "table" ? created.sql : null;
  if (text === null || text === undefined || text.split(check).length !== 2) {
    throw new Error(`table ${table} has no column check ${check} on ${column} to replace`);
  }
  const rebuilt = `${table}_rebuilt`;
  const definition = text.slice(text.indexOf("("));
  await sql`create table ${sql.id(rebuilt)} ${sql.raw(definition.replace(check, `check (${to})`))}`.execute(db);
  await sql`insert into ${sql.id(rebuilt)} select * from ${sql.table(table)}`.execute(db);
  await sql`drop table ${sql.table(table)}`.execute(db);
  await sql`alter table ${sql.id(rebuilt)} rename to ${sql.id(table)}`.execute(db);
  for (const dependent of dependents) if (dependent.sql !== null) await sql.raw(dependent.sql).execute(db);
}
