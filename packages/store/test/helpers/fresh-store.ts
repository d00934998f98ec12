import type { VerqStore } from "@verq/store";
import { createTestDatabase, type Engine, type TestDatabase } from "@verq/testing";
import { afterEach } from "vitest";

/**
 * Stores on databases of their own, each closed and its database removed after the test that
 * opened it. Call at the top of a test file or `describe`; `open` from inside a test.
 */
export function freshStores(): { open(engine: Engine): Promise<{ store: VerqStore; database: TestDatabase }> } {
  const opened: { store: VerqStore; database: TestDatabase }[] = [];
  afterEach(async () => {
    for (const { store, database } of opened.splice(0).reverse()) {
      await store.close();
      await database.dispose();
    }
  });
  return {
    async open(engine) {
      const database = await createTestDatabase(engine);
      const entry = { store: await database.open(), database };
      opened.push(entry);
      return entry;
    },
  };
}

/**
 * Several stores (connections) on one database of the test's own: the first `open` creates it,
 * each later one opens it again. Every store is closed and the database removed after the test.
 */
export function storesOnOneDatabase(): { open(engine: Engine): Promise<VerqStore> } {
  let database: TestDatabase | undefined;
  const stores: VerqStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await database?.dispose();
    database = undefined;
  });
  return {
    async open(engine) {
      database ??= await createTestDatabase(engine);
      const store = await database.open();
      stores.push(store);
      return store;
    },
  };
}
