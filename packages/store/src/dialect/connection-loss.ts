import { VerqError } from "@verq/core";
import { postgresCode } from "./postgres-errors.ts";
import type { CompiledQuery, DatabaseConnection, Driver, QueryResult, TransactionSettings } from "kysely";

/**
 * `VERQ_STORE_CONNECTION_LOST`: the connection broke after the server may have made the work
 * durable (at COMMIT, or under a statement that was a transaction by itself), so whether it
 * landed is unknown. Its contract: never take it for a failure nor for a success; read what the
 * work would have written. `VerqStore.transaction` does so itself for every transaction that
 * appended events (see there), so a service meets this only for a transaction of its own rows.
 */
export function connectionLost(cause: unknown): VerqError {
  return new VerqError(
    "VERQ_STORE_CONNECTION_LOST",
    "the connection to PostgreSQL was lost while the server was committing this work, so whether it was written is unknown; read what it would have written before doing it again (a failover, a server restart or a network reset)",
    { cause },
  );
}

/**
 * Wraps a PostgreSQL driver so that where a lost connection (`isLost`) leaves the outcome
 * unknown, it is {@link connectionLost}: at COMMIT, and under a statement run outside a
 * transaction (which commits by itself). Anywhere else in a transaction (its BEGIN, a statement,
 * the connection it waits for) nothing was committed, and the engine's error passes as it is for
 * the store's retry to recognise. A ROLLBACK on a lost connection is the server's to finish:
 * its failure is dropped, so that the error that made the caller roll back is the one it sees.
 */
export function withConnectionLoss(driver: Driver, isLost: (error: unknown) => boolean): Driver {
  const open = new WeakSet<DatabaseConnection>();
  const inner = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const unwrap = (connection: DatabaseConnection): DatabaseConnection => inner.get(connection) ?? connection;
  const unknownIfLost = (error: unknown): unknown => (isLost(error) ? connectionLost(error) : error);
  // A statement a read-only server refused (25006: a replica, or a primary a failover demoted)
  // did not run: nothing is unknown, and it passes as it is, for a retry on another connection.
  const unknownIfCut = (error: unknown): unknown => (postgresCode(error) === "25006" ? error : unknownIfLost(error));
  const wrap = (connection: DatabaseConnection): DatabaseConnection => {
    const wrapper: DatabaseConnection = {
      async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        try {
          return await connection.executeQuery<R>(query);
        } catch (error) {
          throw open.has(connection) ? error : unknownIfCut(error);
        }
      },
      streamQuery: <R>(query: CompiledQuery, chunkSize?: number) => connection.streamQuery<R>(query, chunkSize),
    };
    inner.set(wrapper, connection);
    return wrapper;
  };
  const wrapped: Driver = {
    init: () => driver.init(),
    acquireConnection: async () => wrap(await driver.acquireConnection()),
    async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
      const own = unwrap(connection);
      open.add(own);
      await driver.beginTransaction(own, settings);
    },
    async commitTransaction(connection) {
      const own = unwrap(connection);
      try {
        await driver.commitTransaction(own);
      } catch (error) {
        throw unknownIfLost(error);
      } finally {
        open.delete(own);
      }
    },
    async rollbackTransaction(connection) {
      const own = unwrap(connection);
      try {
        await driver.rollbackTransaction(own);
      } catch (error) {
        if (!isLost(error)) throw error;
      } finally {
        open.delete(own);
      }
    },
    releaseConnection: (connection) => driver.releaseConnection(unwrap(connection)),
    destroy: () => driver.destroy(),
  };
  if (driver.savepoint !== undefined) wrapped.savepoint = (c, name, compile) => driver.savepoint!(unwrap(c), name, compile);
  if (driver.rollbackToSavepoint !== undefined)
    wrapped.rollbackToSavepoint = (c, name, compile) => driver.rollbackToSavepoint!(unwrap(c), name, compile);
  if (driver.releaseSavepoint !== undefined)
    wrapped.releaseSavepoint = (c, name, compile) => driver.releaseSavepoint!(unwrap(c), name, compile);
  return wrapped;
}
