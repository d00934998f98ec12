import type { VerqError } from "@verq/core";
import type { CompiledQuery, DatabaseConnection, Driver, QueryResult, TransactionSettings } from "kysely";

/** The verq error a database error stands for (the disk is full, the file is damaged), or undefined to let it through as it is. */
export type StoreErrorOf = (error: unknown) => VerqError | undefined;

/**
 * Wraps a Kysely driver so that every statement, and every BEGIN, COMMIT, ROLLBACK and
 * savepoint, throws the verq error `storeErrorOf` names instead of the engine's own: one seam for
 * every query of the store, whichever service runs it. Errors it does not name (busy, unique
 * violations, lost connections) pass through untouched, so the retries and conflict checks that
 * read the engine's codes still see them. The wrapped driver's own methods always get its own
 * connection objects back, never the wrappers.
 */
export function withStoreErrors(driver: Driver, storeErrorOf: StoreErrorOf): Driver {
  const inner = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const unwrap = (connection: DatabaseConnection): DatabaseConnection => inner.get(connection) ?? connection;
  const translated = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw storeErrorOf(error) ?? error;
    }
  };
  const wrap = (connection: DatabaseConnection): DatabaseConnection => {
    const wrapper: DatabaseConnection = {
      executeQuery: <R>(query: CompiledQuery): Promise<QueryResult<R>> => translated(() => connection.executeQuery<R>(query)),
      async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
        try {
          yield* connection.streamQuery<R>(query, chunkSize);
        } catch (error) {
          throw storeErrorOf(error) ?? error;
        }
      },
    };
    inner.set(wrapper, connection);
    return wrapper;
  };
  const wrapped: Driver = {
    init: () => translated(() => driver.init()),
    acquireConnection: () => translated(async () => wrap(await driver.acquireConnection())),
    beginTransaction: (connection: DatabaseConnection, settings: TransactionSettings) =>
      translated(() => driver.beginTransaction(unwrap(connection), settings)),
    commitTransaction: (connection) => translated(() => driver.commitTransaction(unwrap(connection))),
    rollbackTransaction: (connection) => translated(() => driver.rollbackTransaction(unwrap(connection))),
    releaseConnection: (connection) => driver.releaseConnection(unwrap(connection)),
    destroy: () => driver.destroy(),
  };
  // Only what the driver has: Kysely asks whether a driver supports savepoints by these methods.
  if (driver.savepoint !== undefined) {
    wrapped.savepoint = (connection, name, compile) => translated(() => driver.savepoint!(unwrap(connection), name, compile));
  }
  if (driver.rollbackToSavepoint !== undefined) {
    wrapped.rollbackToSavepoint = (connection, name, compile) =>
      translated(() => driver.rollbackToSavepoint!(unwrap(connection), name, compile));
  }
  if (driver.releaseSavepoint !== undefined) {
    wrapped.releaseSavepoint = (connection, name, compile) =>
      translated(() => driver.releaseSavepoint!(unwrap(connection), name, compile));
  }
  return wrapped;
}
