import type Database from "better-sqlite3";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";
import type { StoreErrors } from "./store-error-driver.ts";
import type { HotPath } from "./hot-path.ts";
import type { ConnectionWatch } from "./connection-watch.ts";

/** At most this many distinct statement texts are kept prepared; then the cache starts again. */
const MAX_STATEMENTS = 200;

/**
 * The SQLite hot path over the store's one better-sqlite3 connection: reads through prepared
 * statements, kept per text, run synchronously, their rows returned as arrays (`raw` mode):
 * better-sqlite3 builds an object of 18 properties for each `jobs` row otherwise, which cost
 * 3.3 µs a row against 1.65 µs as an array (bench/hot-path, 20,000 pending jobs). Statements
 * of its own, apart from Kysely's driver's cache, so that raw mode never changes what Kysely reads.
 */
export function sqliteHotPath(raw: Database.Database, errors: StoreErrors, watch: ConnectionWatch): HotPath {
  const held = new WeakSet<Kysely<VerqDatabase>>();
  const statements = new Map<string, Database.Statement>();
  const prepare = (text: string): Database.Statement => {
    watch.ran();
    let statement = statements.get(text);
    if (statement === undefined) {
      statement = raw.prepare(text);
      if (statements.size >= MAX_STATEMENTS) statements.clear();
      statements.set(text, statement);
    }
    return statement;
  };
  return {
    hold: (trx) => void held.add(trx),
    release: (trx) => void held.delete(trx),
    holds: (trx) => held.has(trx),
    readRows(text, parameters) {
      errors.assertUndamaged();
      try {
        return prepare(text)
          .raw(true)
          .all(...parameters) as unknown[][];
      } catch (error) {
        // The same codes as Kysely's path (see withStoreErrors): a damaged page is VERQ_STORE_CORRUPT, and final.
        throw errors.translate(error);
      }
    },
  };
}
