import { sql, type Kysely } from "kysely";

/** A database's schema as text, in a fixed order: what the migrations made, and which of them ran. */
export interface SchemaDump {
  /** The names in `verq_migrations`, in order. */
  readonly migrations: readonly string[];
  /** Every object's definition, one line each (`kind name: definition`), the test schema's name replaced by `<schema>`. */
  readonly objects: readonly string[];
}

type Db = Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const rowsOf = async (db: Db, query: ReturnType<typeof sql>): Promise<Record<string, unknown>[]> =>
  (await query.execute(db)).rows as Record<string, unknown>[];

async function migrationNames(db: Db): Promise<string[]> {
  return (await rowsOf(db, sql`select name from verq_migrations order by name`)).map((row) => String(row.name));
}

/** SQLite: every row of `sqlite_master` but SQLite's own (`sqlite_%`), with its text as stored. */
export async function dumpSqliteSchema(db: Db): Promise<SchemaDump> {
  const rows = await rowsOf(
    db,
    sql`select type, name, tbl_name, sql from sqlite_master where name not like 'sqlite_%' order by type, name`,
  );
  return {
    migrations: await migrationNames(db),
    objects: rows.map((row) => `${String(row.type)} ${String(row.name)} on ${String(row.tbl_name)}: ${String(row.sql)}`),
  };
}

/**
 * PostgreSQL: the columns (type, nullability, default), constraints, indexes, triggers,
 * functions and sequences of the current schema, as the catalog prints them.
 */
export async function dumpPostgresSchema(db: Db): Promise<SchemaDump> {
  const [{ schema }] = (await rowsOf(db, sql`select current_schema() as schema`)) as [{ schema: string }];
  const queries: [string, ReturnType<typeof sql>][] = [
    [
      "column",
      sql`select table_name || '.' || column_name as name,
        data_type || ' ' || is_nullable || ' default ' || coalesce(column_default, '-') as def
        from information_schema.columns where table_schema = current_schema() order by table_name, ordinal_position`,
    ],
    [
      "constraint",
      sql`select conrelid::regclass::text || '.' || conname as name, pg_get_constraintdef(oid) as def
        from pg_constraint where connamespace = current_schema()::regnamespace order by 1`,
    ],
    ["index", sql`select indexname as name, indexdef as def from pg_indexes where schemaname = current_schema() order by 1`],
    [
      "trigger",
      sql`select tgname as name, pg_get_triggerdef(t.oid) as def from pg_trigger t join pg_class c on c.oid = t.tgrelid
        where not t.tgisinternal and c.relnamespace = current_schema()::regnamespace order by 1`,
    ],
    [
      "function",
      sql`select proname as name, pg_get_functiondef(oid) as def from pg_proc where pronamespace = current_schema()::regnamespace order by 1`,
    ],
    [
      "sequence",
      sql`select sequencename as name, data_type || ' start ' || start_value || ' by ' || increment_by as def
        from pg_sequences where schemaname = current_schema() order by 1`,
    ],
  ];
  const objects: string[] = [];
  for (const [kind, query] of queries) {
    for (const row of await rowsOf(db, query)) objects.push(`${kind} ${String(row.name)}: ${String(row.def)}`);
  }
  return { migrations: await migrationNames(db), objects: objects.map((line) => line.replaceAll(schema, "<schema>")) };
}
