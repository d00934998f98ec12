import { sql, type Kysely } from "kysely";
import { postgresMigrationParts } from "../migrations/postgres/postgres-migration-parts.ts";
import type { VerqDatabase } from "../schema.ts";
import type { MigrationSupport } from "./migration-support.ts";
import { postgresErrors } from "./postgres-errors.ts";
import { postgresPositions } from "./postgres-positions.ts";
import { postgresBatch } from "./postgres-batches.ts";
import type { PreparedStatements } from "./postgres-prepared.ts";
import type { Statements } from "./statements.ts";
import type { StoreDialect } from "./store-dialect.ts";
import type { Wakeups } from "./wakeups.ts";

/** The advisory lock key of verq's migrations: "verq" in ASCII. */
const MIGRATION_LOCK_KEY = 0x76657271;

/**
 * How PostgreSQL runs the store's statements: several writers at once, each statement a round
 * trip. The hot path's statements have one text whatever their number of values (arrays bound
 * as one parameter each), which `prepared` names, so that each connection parses and plans them
 * once.
 */
export function postgresStatements(prepared: PreparedStatements): Statements {
  return {
    batch: (types, rows, statement) => postgresBatch(types, rows, statement, (text) => prepared.declare(text)),
    fixed(query) {
      prepared.declare(query.sql);
      return query;
    },
    isOneOf: (expression, values) => sql<boolean>`${sql.raw(expression)} = any(${values}::text[])`,
    claimLimit: (n) => sql`${n}`,
    // A failed statement aborts a PostgreSQL transaction; a savepoint keeps the rest of it.
    async isolated<T>(trx: Kysely<VerqDatabase>, work: () => Promise<T>): Promise<T> {
      await sql`savepoint verq_isolated`.execute(trx);
      try {
        const result = await work();
        await sql`release savepoint verq_isolated`.execute(trx);
        return result;
      } catch (error) {
        await sql`rollback to savepoint verq_isolated`.execute(trx);
        throw error;
      }
    },
    async exclusive(trx: Kysely<VerqDatabase>, topic: string): Promise<void> {
      await sql`select pg_advisory_xact_lock(hashtext(${topic}))`.execute(trx);
    },
    claimLockSuffix: "for update skip locked",
    parallelWrites: true,
    standaloneWrites: true,
    // JIT off as well: a plan that must still sort carries the disabled sort's huge cost, which
    // would have PostgreSQL JIT-compile the claim (about 150 ms) on every call. A left join keeps
    // the settings' row whatever `select` finds, so they are always evaluated.
    withClaimSettings: (select) =>
      `select claimed.* from (select set_config('enable_sort', 'off', true), set_config('jit', 'off', true)) as claim_settings
        left join lateral (${select}) as claimed on true`,
    jsonText: (column, key) => sql<string | null>`(${sql.ref(column)}::json ->> ${sql.lit(key)})`,
    notSought: (column) => sql.ref(column),
  };
}

/** PostgreSQL's side of the migrations: an advisory lock around the first open, and the current schema's bookkeeping. */
export const postgresMigrations: MigrationSupport = {
  // One transaction, and a lock that ends with it, for the whole first open: the schema, Kysely's
  // migration tables and the migrations themselves, so that processes opening one fresh database
  // at once wait for each other instead of racing on CREATE. Nothing outlives the transaction on
  // the server connection, so it works the same through a pooler that hands each transaction
  // another connection (PgBouncer in transaction mode), and a process that dies mid-way leaves
  // neither a held lock nor half a schema.
  async withMigrationLock<T>(db: Kysely<VerqDatabase>, work: (db: Kysely<VerqDatabase>) => Promise<T>): Promise<T> {
    return db.connection().execute(async (connection) => {
      await sql`begin`.execute(connection);
      try {
        await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`.execute(connection);
        const result = await work(connection);
        await sql`commit`.execute(connection);
        return result;
      } catch (error) {
        await sql`rollback`.execute(connection).catch(() => {});
        throw error;
      }
    });
  },
  // The migrations run in the transaction above.
  ownTransaction: true,
  // Kysely's migrator finds its tables in any schema it can see unless told which: without this,
  // a fresh store would take another schema's verq_migrations for its own and never create them.
  async migrationSchema(db: Kysely<VerqDatabase>): Promise<string | undefined> {
    const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
    const schema = rows[0]?.schema ?? null;
    // No schema of the search path exists: say so, rather than fail later on a missing table.
    if (schema === null) throw Object.assign(new Error("no schema of the search path exists"), { code: "3F000" });
    return schema;
  },
  parts: postgresMigrationParts,
};

/**
 * The PostgreSQL dialect of one store, whose `wakeups` are its LISTEN/NOTIFY channel (see
 * postgres-wakeups.ts) and whose fixed statements run as `prepared` names them (see
 * postgres-prepared.ts).
 */
export function postgresStoreDialect(wakeups: Wakeups, prepared: PreparedStatements): StoreDialect {
  return {
    name: "postgres",
    statements: postgresStatements(prepared),
    errors: postgresErrors,
    positions: postgresPositions,
    wakeups,
    // Nothing to do: the server manages its own files.
    maintenance: { checkpoint: () => Promise.resolve() },
    migrations: postgresMigrations,
  };
}
