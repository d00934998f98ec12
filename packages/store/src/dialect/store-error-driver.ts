import type { VerqError } from "@verq/core";
import type { CompiledQuery, DatabaseConnection, Driver, QueryResult, TransactionSettings } from "kysely";

/** The verq error a database error stands for (the disk is full, the file is damaged), or undefined to let it through as it is. */
export type StoreErrorOf = (error: unknown) => VerqError | undefined;

/**
 * What one store's statements throw: the verq error `storeErrorOf` names for an engine error,
 * else the engine's own (so that the retries and conflict checks that read the engine's codes
 * still see them). `VERQ_STORE_CORRUPT` is final: once one statement found the database damaged,
 * {@link assertUndamaged} throws it before every later statement and transaction, so that
 * nothing more is written into a damaged file, even where a write would not touch the damage.
 */
export class StoreErrors {
  readonly #storeErrorOf: StoreErrorOf;
  #damaged: VerqError | undefined;

  constructor(storeErrorOf: StoreErrorOf) {
    this.#storeErrorOf = storeErrorOf;
  }

  /** Throws the damage a statement found before, if any. */
  assertUndamaged(): void {
    if (this.#damaged !== undefined) throw this.#damaged;
  }

  /** What to throw for `error` (remembering damage). */
  translate(error: unknown): unknown {
    const named = this.#storeErrorOf(error);
    if (named?.code === "VERQ_STORE_CORRUPT") this.#damaged ??= named;
    return named ?? error;
  }
}

/**
 * Wraps a Kysely driver so that every statement, and every BEGIN, COMMIT, ROLLBACK and
 * savepoint, throws what `errors` makes of its error (see {@link StoreErrors}): one seam for
 * every query of the store, whichever service runs it. After damage was found, every call but a
 * ROLLBACK fails at once. The wrapped driver's own methods always get its own connection objects
 * back, never the wrappers.
 */
export function withStoreErrors(driver: Driver, errors: StoreErrors): Driver {
  const inner = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const unwrap = (connection: DatabaseConnection): DatabaseConnection => inner.get(connection) ?? connection;
  const translated = async <T>(work: () => Promise<T>, evenIfDamaged = false): Promise<T> => {
    if (!evenIfDamaged) errors.assertUndamaged();
    try {
      return await work();
    } catch (error) {
      throw errors.translate(error);
    }
  };
  const wrap = (connection: DatabaseConnection): DatabaseConnection => {
    const wrapper: DatabaseConnection = {
      executeQuery: <R>(query: CompiledQuery): Promise<QueryResult<R>> => translated(() => connection.executeQuery<R>(query)),
      async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
        errors.assertUndamaged();
        try {
          yield* connection.streamQuery<R>(query, chunkSize);
        } catch (error) {
          throw errors.translate(error);
        }
      },
    };
    inner.set(wrapper, connection);
    return wrapper;
  };
  const wrapped: Driver = {
    init: () => translated(() => driver.init()),
    acquireConnection: async () => wrap(await driver.acquireConnection()),
    beginTransaction: (connection: DatabaseConnection, settings: TransactionSettings) =>
      translated(() => driver.beginTransaction(unwrap(connection), settings)),
    commitTransaction: (connection) => translated(() => driver.commitTransaction(unwrap(connection))),
    rollbackTransaction: (connection) => translated(() => driver.rollbackTransaction(unwrap(connection)), true),
    releaseConnection: (connection) => driver.releaseConnection(unwrap(connection)),
    destroy: () => driver.destroy(),
  };
  // Only what the driver has: Kysely asks whether a driver supports savepoints by these methods.
  if (driver.savepoint !== undefined) {
    wrapped.savepoint = (connection, name, compile) => translated(() => driver.savepoint!(unwrap(connection), name, compile));
  }
  if (driver.rollbackToSavepoint !== undefined) {
    wrapped.rollbackToSavepoint = (connection, name, compile) =>
      translated(() => driver.rollbackToSavepoint!(unwrap(connection), name, compile), true);
  }
  if (driver.releaseSavepoint !== undefined) {
    wrapped.releaseSavepoint = (connection, name, compile) =>
      translated(() => driver.releaseSavepoint!(unwrap(connection), name, compile));
  }
  return wrapped;
}
