import type fc from "fast-check";
import type { VerqStore } from "@verq/store";

/** Kysely's plugin interface, as the store's Kysely instance takes it. */
type StorePlugin = Parameters<VerqStore["db"]["withPlugin"]>[0];

/**
 * Models the time a store round trip takes: the result of every query is handed back only
 * when the scheduler says so. It changes no query and no result; it only lets another request
 * run between, say, a lookup and the insert that follows it — the window where a relay on a
 * networked database would lose a race. Without it, a single SQLite connection in one process
 * would run each request's queries back to back and hide such races.
 *
 * A result reaches the scheduler in a later turn of the event loop, as a networked database's
 * does: SQLite's driver answers within the same turn, PostgreSQL's in a later one, and the
 * scheduler must see the same tasks waiting at each step on both, or one seed would give two
 * interleavings (with one connection a store, see `StoreFactoryOptions.oneConnection`).
 */
export function scheduledLatency(s: fc.Scheduler): StorePlugin {
  return {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      await new Promise((resolve) => setImmediate(resolve));
      await s.schedule(Promise.resolve(), "store round trip");
      return args.result;
    },
  };
}
