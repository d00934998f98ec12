import { ManualClock, type LedgerEntry } from "@verq/core";
import { GuidLedger, type VerqStore } from "@verq/store";
import { createTestDatabase, TestCore, type Engine, type TestDatabase } from "@verq/testing";
import type { FastifyInstance } from "fastify";
import { createHttpCoreClient } from "../../../src/relay/http-core-client.ts";
import { createRelayServer } from "../../../src/relay/relay-server.ts";
import { RelayService } from "../../../src/relay/relay-service.ts";

/** A channel's view of one answer. */
export interface ChannelAnswer {
  readonly status: number;
  readonly text: string;
  readonly code: string | undefined;
  readonly state: string | null;
  readonly replayed: string | null;
}

/** A relay over a real database (a SQLite file or a PostgreSQL schema), on real HTTP on 127.0.0.1, in front of a real test core. */
export interface RelayHarness {
  readonly database: TestDatabase;
  /** What `--db` takes for this ledger: the SQLite file, or the PostgreSQL URL of its schema. */
  readonly db: string;
  readonly store: VerqStore;
  readonly clock: ManualClock;
  readonly core: TestCore;
  readonly ledger: GuidLedger;
  readonly relay: RelayService;
  readonly app: FastifyInstance;
  /** `POST {relay}/transfer`. */
  readonly url: string;
  send(body: string | Record<string, unknown>, headers?: Record<string, string>): Promise<ChannelAnswer>;
  entry(guid: string): Promise<LedgerEntry | null>;
  close(): Promise<void>;
}

/** Starts a test core and a relay (in this process) on a fresh test database of `engine`. */
export async function startRelay(
  engine: Engine,
  options: { coreTimeoutMs?: number; maxAttempts?: number; bodyLimit?: number; requestTimeout?: number } = {},
): Promise<RelayHarness> {
  const database = await createTestDatabase(engine, "ledger.sqlite");
  const store = await database.open();
  const clock = new ManualClock(1_767_258_000_000);
  const core = await TestCore.start();
  const ledger = new GuidLedger(store, { clock });
  const relay = new RelayService({
    ledger,
    core: createHttpCoreClient({ url: core.url, timeoutMs: options.coreTimeoutMs ?? 2_000 }),
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
  });
  const app = createRelayServer({
    relay,
    ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }),
    ...(options.requestTimeout === undefined ? {} : { requestTimeout: options.requestTimeout }),
  });
  const url = `${await app.listen({ port: 0, host: "127.0.0.1" })}/transfer`;
  return {
    database,
    db: database.db,
    store,
    clock,
    core,
    ledger,
    relay,
    app,
    url,
    send: (body, headers = { "content-type": "application/json" }) => sendTo(url, body, headers),
    entry: (guid) => ledger.get(guid),
    async close() {
      await app.close();
      await core.close();
      await store.close();
      await database.dispose();
    },
  };
}

/** One channel request to `url`, and its answer. */
export async function sendTo(
  url: string,
  body: string | Record<string, unknown>,
  headers: Record<string, string> = { "content-type": "application/json" },
): Promise<ChannelAnswer> {
  const response = await fetch(url, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });
  const text = await response.text();
  let code: string | undefined;
  try {
    const parsed = JSON.parse(text) as { code?: unknown; error?: { code?: unknown } };
    code = typeof parsed.code === "string" ? parsed.code : typeof parsed.error?.code === "string" ? parsed.error.code : undefined;
  } catch {
    code = undefined;
  }
  return {
    status: response.status,
    text,
    code,
    state: response.headers.get("verq-ledger-state"),
    replayed: response.headers.get("idempotent-replayed"),
  };
}

/** Waits until `check` holds (polling every 5 ms), or fails after `timeoutMs`. */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Every table row of the ledger and the guid events, for "nothing changed" checks. */
export async function ledgerSnapshot(store: VerqStore): Promise<{ ledger: unknown[]; events: unknown[] }> {
  const db = store.db.withTables<{ ledger: Record<string, unknown> }>();
  return {
    ledger: await db.selectFrom("ledger").selectAll().orderBy("guid").execute(),
    events: await store.db.selectFrom("events").selectAll().where("stream_type", "!=", "job").orderBy("position").execute(),
  };
}
