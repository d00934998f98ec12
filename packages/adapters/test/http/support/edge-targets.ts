import { Registry } from "prom-client";
import type { VerqStore } from "@verq/store";
import { createTestDatabase, type Engine } from "@verq/testing";
import type { FastifyInstance } from "fastify";
import { ensureInventoryTable, inventoryEffect } from "../../../../cli/src/inventory-receiver.ts";
import { createDashboardServer } from "../../../src/dashboard/dashboard-server.ts";
import { createReceiverServer } from "../../../src/http/receiver-server.ts";
import { createMetricsServer } from "../../../src/metrics/metrics-server.ts";
import { registerVerqMetrics } from "../../../src/metrics/verq-metrics.ts";
import { ledgerSnapshot, startRelay } from "../../relay/support/relay-harness.ts";
import type { EdgeDefaults } from "./raw-case.ts";

/** The HTTP edges the corpus covers, one folder of `corpus/` each. */
export const EDGES = ["relay", "receiver", "metrics", "dashboard"] as const;
export type EdgeName = (typeof EDGES)[number];

/** The request timeout the corpus's servers run with: short, so a slow client is cut in about half a second. */
export const CORPUS_REQUEST_TIMEOUT_MS = 500;

/** One edge over a real store on real HTTP on 127.0.0.1, and how to tell that bad input changed nothing. */
export interface EdgeTarget {
  readonly name: EdgeName;
  readonly port: number;
  readonly defaults: EdgeDefaults;
  /** The largest body the edge accepts (its route's `bodyLimit`). */
  readonly bodyLimit: number;
  /** Everything the edge could have written (rows, and for the relay the core's calls), to compare before and after. */
  snapshot(): Promise<unknown>;
  /** A good request, which must still be answered as usual: throws otherwise. */
  good(): Promise<void>;
  close(): Promise<void>;
}

const expectOk = async (response: Response, what: string): Promise<string> => {
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${what}: HTTP ${response.status} ${text.slice(0, 200)}`);
  return text;
};

/** Every row of `store`'s event log, ledger and receipts (the tables a bad request must leave alone). */
async function storeRows(store: VerqStore): Promise<unknown> {
  const db = store.db.withTables<{ receipts: Record<string, unknown> }>();
  return {
    ...(await ledgerSnapshot(store)),
    eventCount: (
      await store.db
        .selectFrom("events")
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
    receipts: await db.selectFrom("receipts").selectAll().orderBy("key").execute(),
  };
}

/** A fresh store on `engine` with the servers' listening helpers around it. */
async function withStore(engine: Engine) {
  const database = await createTestDatabase(engine, "edge.sqlite");
  const store = await database.open();
  const listen = async (app: FastifyInstance) => Number(new URL(await app.listen({ port: 0, host: "127.0.0.1" })).port);
  const closeAll = async (app: FastifyInstance) => {
    await app.close();
    await store.close();
    await database.dispose();
  };
  return { store, listen, closeAll };
}

/** Starts `edge` on a fresh database of `engine`. */
export async function startEdge(edge: EdgeName, engine: Engine): Promise<EdgeTarget> {
  switch (edge) {
    case "relay": {
      const h = await startRelay(engine, { requestTimeout: CORPUS_REQUEST_TIMEOUT_MS });
      // A DONE GUID whose resend is the good request: answered from the ledger, nothing written.
      const seed = '{"guid":"CORPUS-GOOD","amount":1}';
      if ((await h.send(seed)).status !== 200) throw new Error("relay: the seed transfer failed");
      return {
        name: edge,
        port: Number(new URL(h.url).port),
        defaults: { method: "POST", path: "/transfer", headers: [["Content-Type", "application/json"]] },
        bodyLimit: 65_536,
        snapshot: async () => ({ rows: await storeRows(h.store), coreCalls: h.core.received }),
        good: async () => {
          const again = await h.send(seed);
          if (again.status !== 200 || again.replayed !== "true")
            throw new Error(`relay: good resend got ${again.status} ${again.text}`);
        },
        close: () => h.close(),
      };
    }
    case "receiver": {
      const { store, listen, closeAll } = await withStore(engine);
      await ensureInventoryTable(store);
      const app = createReceiverServer({ store, effect: inventoryEffect("default"), requestTimeout: CORPUS_REQUEST_TIMEOUT_MS });
      const port = await listen(app);
      const url = `http://127.0.0.1:${port}/`;
      const good = () =>
        fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", "idempotency-key": "corpus-good" },
          body: '{"quantity":1}',
        });
      await expectOk(await good(), "receiver: the seed delivery");
      const inventory = () =>
        store.db.withTables<{ inventory: { item: string } }>().selectFrom("inventory").selectAll().execute();
      return {
        name: edge,
        port,
        defaults: {
          method: "POST",
          path: "/",
          headers: [
            ["Content-Type", "application/json"],
            ["Idempotency-Key", "corpus-case"],
          ],
        },
        bodyLimit: 65_536,
        snapshot: async () => ({ rows: await storeRows(store), inventory: await inventory() }),
        good: async () => {
          const response = await good();
          await expectOk(response, "receiver: good repeat");
          if (response.headers.get("idempotent-replayed") !== "true")
            throw new Error("receiver: the good repeat was not replayed");
        },
        close: () => closeAll(app),
      };
    }
    case "metrics": {
      const { store, listen, closeAll } = await withStore(engine);
      const registry = new Registry();
      registerVerqMetrics(registry, { store });
      const app = createMetricsServer({ registry, requestTimeout: CORPUS_REQUEST_TIMEOUT_MS });
      return readOnlyTarget(edge, store, await listen(app), "/metrics", "verq_", () => closeAll(app));
    }
    case "dashboard": {
      const { store, listen, closeAll } = await withStore(engine);
      const app = createDashboardServer({ store, requestTimeout: CORPUS_REQUEST_TIMEOUT_MS });
      return readOnlyTarget(edge, store, await listen(app), "/", "<html", () => closeAll(app));
    }
  }
}

/**
 * A read-only edge (metrics, the dashboard) listening on `port`: its good request is a GET of
 * `path` whose body holds `marker`, and its default case is that same GET.
 */
function readOnlyTarget(
  edge: EdgeName,
  store: VerqStore,
  port: number,
  path: string,
  marker: string,
  close: () => Promise<void>,
): EdgeTarget {
  return {
    name: edge,
    port,
    defaults: { method: "GET", path, headers: [] },
    bodyLimit: 1_048_576,
    snapshot: () => storeRows(store),
    good: async () => {
      const text = await expectOk(await fetch(`http://127.0.0.1:${port}${path}`), `${edge}: good GET ${path}`);
      if (!text.includes(marker)) throw new Error(`${edge}: GET ${path} has no ${marker}`);
    },
    close,
  };
}
