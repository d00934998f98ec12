import {
  PostgresAdapter,
  PostgresDialect,
  type DialectAdapter,
  sql,
  type DatabaseIntrospector,
  type Driver,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  type Kysely,
  type ColumnMetadata,
  type SchemaMetadata,
  type TableMetadata,
} from "kysely";
import { withConnectionLoss } from "./connection-loss.ts";
import { isPostgresConnectionLost } from "./postgres-errors.ts";

interface ColumnRow {
  readonly schema: string;
  readonly table: string;
  readonly table_type: string;
  readonly column: string;
  readonly type: string;
  readonly type_schema: string;
  readonly not_null: boolean;
  readonly has_default: boolean;
  readonly comment: string | null;
  readonly auto_incrementing: string | null;
}

/**
 * Kysely's PostgreSQL adapter with a migration lock that is a transaction advisory lock: a
 * session lock taken through a pooler in transaction mode stays with whichever server connection
 * ran it, and Kysely's waits up to an hour for one left so.
 */
class TransactionLockAdapter extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`select pg_advisory_xact_lock(${KYSELY_MIGRATION_LOCK}::bigint)`.execute(db);
  }

  override async releaseMigrationLock(): Promise<void> {
    // Released by the end of the transaction.
  }
}

/** Kysely's own key for its migration lock, kept so that a migrator of Kysely's own still waits on verq's. */
const KYSELY_MIGRATION_LOCK = "3853314791062309107";

/** The migration tables Kysely hides from its listings unless asked for them. */
const KYSELY_TABLES = ["kysely_migration", "kysely_migration_lock"];

/**
 * Kysely's PostgreSQL introspection, limited to the schemas of the connection's search path:
 * the tables the store itself reads and writes. Kysely's own lists every schema of the database
 * and asks for each one's privileges by name, which fails when another client drops a schema
 * meanwhile; a store in a schema of its own must neither see nor trip over its neighbours.
 */
export class SearchPathIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>;

  constructor(db: Kysely<unknown>) {
    this.#db = db;
  }

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select unnest(current_schemas(false)) as name`.execute(this.#db);
    return rows.map((row) => ({ name: row.name }));
  }

  async getTables(options: DatabaseMetadataOptions = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    const { rows } = await sql<ColumnRow>`
      select ns.nspname as schema, c.relname as table, c.relkind as table_type, a.attname as column,
        typ.typname as type, dtns.nspname as type_schema, a.attnotnull as not_null, a.atthasdef as has_default,
        col_description(a.attrelid, a.attnum) as comment,
        pg_get_serial_sequence(quote_ident(ns.nspname) || '.' || quote_ident(c.relname), a.attname) as auto_incrementing
      from pg_catalog.pg_attribute a
        join pg_catalog.pg_class c on a.attrelid = c.oid
        join pg_catalog.pg_namespace ns on c.relnamespace = ns.oid
        join pg_catalog.pg_type typ on a.atttypid = typ.oid
        join pg_catalog.pg_namespace dtns on typ.typnamespace = dtns.oid
      where ns.nspname = any (current_schemas(false))
        and c.relkind in ('r', 'v', 'p')
        and a.attnum >= 0
        and not a.attisdropped
      order by ns.nspname, c.relname, a.attnum`.execute(this.#db);
    const tables = new Map<string, TableMetadata & { columns: ColumnMetadata[] }>();
    for (const row of rows) {
      if (options.withInternalKyselyTables !== true && KYSELY_TABLES.includes(row.table)) continue;
      const key = `${row.schema}.${row.table}`;
      let table = tables.get(key);
      if (table === undefined) {
        table = { name: row.table, schema: row.schema, isView: row.table_type === "v", columns: [] };
        tables.set(key, table);
      }
      table.columns.push({
        name: row.column,
        dataType: row.type,
        dataTypeSchema: row.type_schema,
        isNullable: !row.not_null,
        isAutoIncrementing: row.auto_incrementing !== null,
        hasDefaultValue: row.has_default,
        ...(row.comment === null ? {} : { comment: row.comment }),
      });
    }
    return [...tables.values()];
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) };
  }
}

/**
 * Kysely's PostgreSQL dialect, with introspection limited to the search path (see
 * {@link SearchPathIntrospector}). Its driver is not wrapped: a full disk is named
 * `VERQ_STORE_FULL` by `VerqStore.transaction` (`ErrorClassifier.storeError`), where every write
 * runs (a wrapped pg driver did not recover its pool's connections after they were killed).
 */
export class SearchPathPostgresDialect extends PostgresDialect {
  /** Kysely's driver, with a connection lost where the outcome is unknown made `VERQ_STORE_CONNECTION_LOST` (see connection-loss.ts). */
  override createDriver(): Driver {
    return withConnectionLoss(super.createDriver(), isPostgresConnectionLost);
  }

  /** Kysely's adapter, whose migration lock ends with the transaction the migrations run in (see `postgresMigrations`). */
  override createAdapter(): DialectAdapter {
    return new TransactionLockAdapter();
  }

  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SearchPathIntrospector(db);
  }
}
