import { VerqError } from "@verq/core";
import { Kysely, sql } from "kysely";
import pg from "pg";
import type { VerqDatabase } from "../schema.ts";
import type { PostgresOptions } from "./postgres-options.ts";
import { postgresCode } from "./postgres-errors.ts";
import { SearchPathPostgresDialect } from "./postgres-introspector.ts";
import { preparedStatements, preparingPool, type PreparedStatements } from "./postgres-prepared.ts";
import { describePostgresUrl, isPostgresUrl } from "./postgres-url.ts";
import { storeNotInitialized } from "../store-open-errors.ts";

/** How long a store tries to get a connection back (a failover takes seconds to tens of seconds), in ms. */
export const DEFAULT_RECONNECT_MS = 30_000;

/** A schema name verq accepts: it is written into `search_path`, so nothing that needs quoting. */
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

// int8 (positions, times in ms) and numeric (amounts) as numbers, as SQLite returns them; every
// int8 verq stores is a time in ms, a position or a count, far below 2^53.
const INT8_OID = 20;
const NUMERIC_OID = 1700;
const types = {
  getTypeParser(oid: number, format?: "text" | "binary"): (value: string) => unknown {
    if (format !== "binary" && (oid === INT8_OID || oid === NUMERIC_OID)) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format ?? "text") as (value: string) => unknown;
  },
};

/**
 * What PgBouncer answers to a client that sends the `options` startup parameter, which carries
 * the `schema` option's search path. Its SQLSTATE (08P01, protocol violation) says nothing more
 * specific, so the message is what tells it apart.
 */
const OPTIONS_REFUSED = "unsupported startup parameter: options";

/** Why a first connection failed, in words an operator can act on; never with a password. */
function reasonOf(error: unknown): string {
  if (error instanceof Error && error.message.includes(OPTIONS_REFUSED)) {
    return (
      "the server, or a connection pooler in front of it (PgBouncer), refuses the startup parameter options, " +
      "which the schema option (or ?options= in the URL) sets: give each store a database of its own, " +
      "or set the role's search path (alter role <user> set search_path = <schema>) and open without a schema"
    );
  }
  const code = postgresCode(error) ?? (error as { code?: unknown } | null)?.code;
  switch (code) {
    case "ECONNREFUSED":
      return "the connection was refused (is PostgreSQL running and listening there?)";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "the host name does not resolve";
    case "ETIMEDOUT":
      return "the connection timed out";
    case "28P01":
    case "28000":
      return "authentication failed for that user";
    case "3D000":
      return "the database does not exist";
    case "3F000":
      return "no schema of the connection's search path exists (create it, or open the store with the schema option)";
    case "42501":
      return "the user lacks a permission verq needs (CREATE on the database or schema)";
    default:
      return error instanceof Error ? error.message.replace(/postgres(ql)?:\/\/\S+/gi, "(url)") : String(error);
  }
}

/**
 * `VERQ_STORE_UNREACHABLE`: the PostgreSQL server at `url` could not be used, with the host and
 * the reason; the connection string's user and password are never in the message.
 */
export function unreachable(url: string, error: unknown): VerqError {
  return new VerqError(
    "VERQ_STORE_UNREACHABLE",
    `cannot use PostgreSQL at ${describePostgresUrl(url)}: ${reasonOf(error)}. Check the --db URL, the server and the user's permissions.`,
    { cause: error },
  );
}

/**
 * The pool, the Kysely instance over it, the configuration of one more connection like the
 * pool's, and the statements its connections keep prepared.
 */
export interface PostgresHandles {
  readonly pool: pg.Pool;
  readonly db: Kysely<VerqDatabase>;
  readonly clientConfig: pg.ClientConfig;
  readonly prepared: PreparedStatements;
  /** The `reconnectMs` of the options, checked. */
  readonly reconnectMs: number;
  /** Where the wake-ups listen; null for nowhere. */
  readonly listenConfig: pg.ClientConfig | null;
}

/**
 * Opens a pool on the PostgreSQL database of `options.url`, with verq's tables in
 * `options.schema` when given, and checks that one connection works: a malformed URL, a server
 * that cannot be reached or one that refuses the user is `VERQ_STORE_UNREACHABLE`; a bad schema
 * name, pool size or `preparedStatements` `VERQ_INVALID_ARGUMENT`. Nothing is created here.
 */
export async function openPostgres(options: PostgresOptions): Promise<PostgresHandles> {
  if (!isPostgresUrl(options.url) || !URL.canParse(options.url)) {
    throw new VerqError(
      "VERQ_STORE_UNREACHABLE",
      "not a PostgreSQL URL: it looks like postgres://user@host:5432/database (or postgresql://…)",
    );
  }
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) {
    throw new VerqError("VERQ_INVALID_ARGUMENT", "a schema name is 1 to 63 letters, digits or _, not starting with a digit");
  }
  const poolSize = options.poolSize ?? 10;
  if (!Number.isInteger(poolSize) || poolSize < 1) {
    throw new VerqError("VERQ_INVALID_ARGUMENT", "poolSize must be a whole number of at least 1");
  }
  const reconnectMs = options.reconnectMs ?? DEFAULT_RECONNECT_MS;
  if (!Number.isInteger(reconnectMs) || reconnectMs < 0) {
    throw new VerqError("VERQ_INVALID_ARGUMENT", "reconnectMs must be a whole number of milliseconds, 0 or more");
  }
  const named = options.preparedStatements ?? true;
  // Checked before a pool opens: a bad URL there is bad input, with nothing opened.
  listenConfig(options, {});
  if (typeof named !== "boolean") throw new VerqError("VERQ_INVALID_ARGUMENT", "preparedStatements must be true or false");
  const clientConfig: pg.ClientConfig = {
    connectionString: options.url,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    types,
    ...(options.schema === undefined ? {} : { options: `-c search_path=${options.schema}` }),
  };
  const pool = new pg.Pool({ ...clientConfig, max: poolSize });
  // A connection the server ends (a restart, pg_terminate_backend, a network reset) emits
  // `error`: the pool listens only while the connection is idle, and an error with no listener
  // would end the process. The query it was running still fails with that error, and the pool
  // drops the connection.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  const prepared = preparedStatements(named);
  const db = new Kysely<VerqDatabase>({ dialect: new SearchPathPostgresDialect({ pool: preparingPool(pool, prepared) }) });
  try {
    await sql`select 1`.execute(db);
  } catch (error) {
    await db.destroy();
    throw unreachable(options.url, error);
  }
  return { pool, db, clientConfig, prepared, reconnectMs, listenConfig: listenConfig(options, clientConfig) };
}

/** The configuration of the wake-ups' listening connection (see `PostgresOptions.listenUrl`), null for none. */
function listenConfig(options: PostgresOptions, clientConfig: pg.ClientConfig): pg.ClientConfig | null {
  const { listenUrl } = options;
  if (listenUrl === undefined) return clientConfig;
  if (listenUrl === null) return null;
  if (typeof listenUrl !== "string" || !isPostgresUrl(listenUrl) || !URL.canParse(listenUrl)) {
    throw new VerqError("VERQ_INVALID_ARGUMENT", "listenUrl must be a postgres:// URL, or null to listen nowhere");
  }
  return { ...clientConfig, connectionString: listenUrl };
}

/** Creates `schema` if it is missing (on first open, under the migration lock). */
export async function ensureSchema(db: Kysely<VerqDatabase>, schema: string | undefined): Promise<void> {
  if (schema === undefined) return;
  await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
}

/**
 * For an open that may not create the store: refuses a `schema` that does not exist with
 * `VERQ_STORE_NOT_INITIALIZED` (`where` names the server), creating nothing.
 */
export async function requireSchema(db: Kysely<VerqDatabase>, schema: string | undefined, where: string): Promise<void> {
  if (schema === undefined) return;
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_namespace where nspname = ${schema}`.execute(db);
  if (rows[0]?.n !== 1) throw storeNotInitialized(`${where}, schema ${schema} (which does not exist)`);
}
