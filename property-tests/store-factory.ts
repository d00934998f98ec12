import { openStore } from "@verq/store";
import { createTestDatabase, type Engine, type TestDatabase } from "@verq/testing";

/**
 * Where the runs of a property get their stores: each run asks for a fresh database on one
 * engine (a SQLite file in a folder of its own, or a PostgreSQL schema of its own), opens its
 * stores on it, and disposes it when it ends, so that no run sees another's rows.
 */
export interface StoreFactory {
  readonly engine: Engine;
  /** A new, empty database; the caller disposes it. */
  fresh(): Promise<TestDatabase>;
}

/** How the stores of a {@link StoreFactory} are opened. */
export interface StoreFactoryOptions {
  /**
   * Every store opened on PostgreSQL has this one connection, as a SQLite store has: then
   * concurrent callers take turns at the database in the order their code reaches it, and the
   * server's timing decides nothing a seed does not record. (A SQLite store ignores it.)
   */
  readonly oneConnection?: boolean;
}

/** The {@link StoreFactory} of `engine`, over `createTestDatabase`. */
export function storeFactory(engine: Engine, options: StoreFactoryOptions = {}): StoreFactory {
  return {
    engine,
    async fresh() {
      const database = await createTestDatabase(engine);
      // A SQLite database (no schema) has one connection whatever it is asked.
      if (options.oneConnection !== true || database.schema === null) return database;
      return { ...database, open: () => openStore({ url: database.db, poolSize: 1 }) };
    },
  };
}

/** One value per engine: run counts, mostly, since a fresh PostgreSQL schema costs far more than a SQLite file. */
export type PerEngine<T> = Readonly<Record<Engine, T>>;

/**
 * Runs `work` on a fresh database of `stores` and disposes the database afterwards, whether
 * `work` passed or threw. `work` closes the stores it opened before it returns.
 */
export async function withFreshDatabase<T>(stores: StoreFactory, work: (database: TestDatabase) => Promise<T>): Promise<T> {
  const database = await stores.fresh();
  try {
    return await work(database);
  } finally {
    await database.dispose();
  }
}
