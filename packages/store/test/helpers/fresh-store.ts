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
