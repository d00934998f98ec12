import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import type { ColumnCheckChange } from "../column-check-change.ts";

/** Replaces the inline CHECK of one column: dropped and added again by its name, `<table>_<column>_check`. */
export async function replacePostgresColumnCheck(
  db: Kysely<VerqDatabase>,
  { table, column, to }: ColumnCheckChange,
): Promise<void> {
  const name = sql.id(`${table}_${column}_check`);
  await sql`alter table ${sql.table(table)} drop constraint ${name}, add constraint ${name} check (${sql.raw(to)})`.execute(db);
}
