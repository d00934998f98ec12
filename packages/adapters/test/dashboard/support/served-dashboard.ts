import type { VerqStore } from "@verq/store";
import { createTestDatabase, type Engine, type TestDatabase } from "@verq/testing";
import type { FastifyInstance } from "fastify";
import { createDashboardServer, type DashboardServerOptions } from "../../../src/dashboard/dashboard-server.ts";
import { logIn, TOKEN_AUTH } from "./act-session.ts";
import { seedDashboard } from "./seed-dashboard.ts";

/** A dashboard over real HTTP on 127.0.0.1, on a seeded store of one engine. */
export interface ServedDashboard {
  readonly database: TestDatabase;
  readonly store: VerqStore;
  readonly app: FastifyInstance;
  /** The dashboard's URL, without a trailing slash. */
  readonly base: string;
  /** The session cookie when started with `logIn`, else empty. */
  readonly cookie: string;
  /** Closes the app and the store, and drops the database. */
  close(): Promise<void>;
}

/**
 * Opens a fresh `engine` store (a SQLite file named `file`), lets `setup` seed it and say the
 * dashboard's options but the store, serves the dashboard on a free port and, with `logIn`, logs
 * in with the test token (the options must then carry `TOKEN_AUTH`).
 */
export async function serveDashboard(
  engine: Engine,
  file: string,
  setup: (store: VerqStore) => Promise<Omit<DashboardServerOptions, "store">>,
  { logIn: withSession = false }: { readonly logIn?: boolean } = {},
): Promise<ServedDashboard> {
  const database = await createTestDatabase(engine, file);
  const store = await database.open();
  const app = createDashboardServer({ store, ...(await setup(store)) });
  const base = await app.listen({ port: 0, host: "127.0.0.1" });
  const cookie = withSession ? await logIn(base) : "";
  return {
    database,
    store,
    app,
    base,
    cookie,
    close: async () => {
      await app.close();
      await store.close();
      await database.dispose();
    },
  };
}

/** The setup of the act tests: the dashboard's seeded store, behind the test token's login. */
export async function seededWithLogin(store: VerqStore): Promise<Omit<DashboardServerOptions, "store">> {
  await seedDashboard(store);
  return { auth: TOKEN_AUTH };
}
