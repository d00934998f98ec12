import { createHash } from "node:crypto";
import type { PostgresPool, PostgresPoolClient } from "kysely";
import type pg from "pg";
import { isPostgresConnectionLost } from "./postgres-errors.ts";

/**
 * At most this many statement texts are named: the hot path's fixed statements are a few dozen,
 * and each connection keeps every statement it prepared until it closes. A text declared beyond
 * it runs unnamed, as every other statement does.
 */
const MAX_NAMED = 200;

/**
 * The hot path's fixed statements of one PostgreSQL store (see `Statements.fixed`), and the name
 * each runs under: `verq_` and a hash of its text, so that a text has the same name on every
 * connection and in every process, and one name never stands for two texts.
 */
export interface PreparedStatements {
  /** Declares `text` a fixed statement; returns it. Nothing when statements run unnamed. */
  declare(text: string): string;
  /** The name of a declared text; undefined for any other text (it runs unnamed). */
  nameOf(text: string): string | undefined;
}

/**
 * The prepared statements of a store: named when `named` (the default), else none, for a
 * connection pooler in transaction mode that hands each transaction another server connection,
 * where a statement prepared on one is unknown on the next.
 */
export function preparedStatements(named: boolean): PreparedStatements {
  const names = new Map<string, string>();
  return {
    declare(text) {
      if (named && names.size < MAX_NAMED && !names.has(text)) {
        names.set(text, `verq_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`);
      }
      return text;
    },
    nameOf: (text) => names.get(text),
  };
}

/**
 * Kysely's pool over `pool`, whose clients run each declared text of `prepared` as a named
 * statement (`{ name, text, values }`): `pg` sends its text to the server once per connection,
 * which parses it and keeps its plans (the server plans its first five runs with their values,
 * then keeps a generic plan when that is not dearer), and every later run only binds the values.
 * Every other statement runs as before, unnamed. One client object per connection, as Kysely
 * keeps its connections by client.
 */
export function preparingPool(pool: pg.Pool, prepared: PreparedStatements): PostgresPool {
  const clients = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  // Connections a statement found lost or read-only: they are closed on release, never pooled
  // again (a pool that kept a connection to a server a failover made a replica would hand it out
  // for every write to come).
  const broken = new WeakSet<pg.PoolClient>();
  const watched = (client: pg.PoolClient, result: unknown): unknown => {
    if (result instanceof Promise) result.catch((error: unknown) => isPostgresConnectionLost(error) && broken.add(client));
    return result;
  };
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    let wrapped = clients.get(client);
    if (wrapped === undefined) {
      const query = (text: unknown, values?: readonly unknown[]): unknown => {
        if (typeof text !== "string") return client.query(text as pg.Submittable);
        const name = prepared.nameOf(text);
        return watched(
          client,
          name === undefined
            ? client.query(text, values as unknown[])
            : client.query({ name, text, values: values as unknown[] }),
        );
      };
      wrapped = {
        query: query as PostgresPoolClient["query"],
        release: (destroy) => client.release(destroy === true || broken.has(client) ? true : undefined),
      };
      clients.set(client, wrapped);
    }
    return wrapped;
  };
  return {
    connect: async () => wrap(await pool.connect()),
    end: () => pool.end(),
  };
}
