import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { openStore, type SqliteOptions, type VerqStore } from "@verq/store";

/** The two engines a verq store runs on. */
export type Engine = "sqlite" | "postgres";

/** Every engine, in the order contract suites run them. */
export const ENGINES: readonly Engine[] = ["sqlite", "postgres"];

/**
 * The PostgreSQL server tests use: `VERQ_TEST_POSTGRES_URL`, else the local server on
 * 127.0.0.1:5432 (database `test`, user `postgres`).
 */
export const TEST_POSTGRES_URL = process.env.VERQ_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** True when tests must run on PostgreSQL: then an unreachable server fails them instead of skipping them. */
export const postgresRequired = process.env.VERQ_REQUIRE_POSTGRES === "1";

async function probePostgres(): Promise<string | null> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 3_000 });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("select 1");
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

let probed: Promise<string | null> | undefined;

/**
 * Whether `engine` can run here: SQLite always; PostgreSQL when its server answers. Without
 * `VERQ_REQUIRE_POSTGRES=1`, a missing server skips PostgreSQL's tests and says so once; with it,
 * this throws, so CI never passes by skipping them.
 */
export async function engineAvailable(engine: Engine): Promise<boolean> {
  if (engine === "sqlite") return true;
  probed ??= probePostgres();
  const why = await probed;
  if (why === null) return true;
  if (postgresRequired) throw new Error(`VERQ_REQUIRE_POSTGRES=1 but PostgreSQL at ${TEST_POSTGRES_URL} is unreachable: ${why}`);
  console.warn(
    `[verq] PostgreSQL tests SKIPPED: ${TEST_POSTGRES_URL} is unreachable (${why}); set VERQ_REQUIRE_POSTGRES=1 to fail instead`,
  );
  return false;
}

/**
 * One test's own database on one engine: a fresh SQLite file in its own temporary folder, or a
 * fresh schema of the PostgreSQL test database, so that runs never see each other's rows.
 * `db` is what the CLI's `--db` and `openStore` take; `dispose` removes it all.
 */
export interface TestDatabase {
  readonly engine: Engine;
  /** A SQLite file path, or a PostgreSQL URL whose search path is the test's own schema. */
  readonly db: string;
  /** The schema on PostgreSQL; null on SQLite. */
  readonly schema: string | null;
  /** Opens (again) a store on it. */
  open(options?: SqliteOptions): Promise<VerqStore>;
  /** Drops the schema or deletes the folder. Safe to call twice. */
  dispose(): Promise<void>;
}

/** Creates a test database on `engine` (see {@link TestDatabase}); `name` is the SQLite file's name. */
export async function createTestDatabase(engine: Engine, name = "verq.sqlite"): Promise<TestDatabase> {
  if (engine === "sqlite") {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verq-test-"));
    const file = path.join(dir, name);
    return {
      engine,
      db: file,
      schema: null,
      open: (options = {}) => openStore({ path: file, ...options }),
      dispose: () => Promise.resolve(fs.rmSync(dir, { recursive: true, force: true })),
    };
  }
  const schema = `verq_test_${process.pid}_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  swept ??= sweepAbandonedSchemas();
  await swept;
  await admin(`create schema ${schema}`);
  const url = new URL(TEST_POSTGRES_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  let disposed = false;
  return {
    engine,
    db: url.toString(),
    schema,
    open: () => openStore({ url: url.toString() }),
    async dispose() {
      if (disposed) return;
      disposed = true;
      await admin(`drop schema if exists ${schema} cascade`);
    },
  };
}

let swept: Promise<void> | undefined;

/** True when no process of this machine has that id any more. */
export function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as { code?: unknown }).code === "ESRCH";
  }
}

/**
 * Drops, once per process, the test schemas of processes that died before disposing of them
 * (a killed test run), so that they do not pile up in the test database. Schemas of processes
 * still alive, and anything not named `verq_test_<pid>_…`, are left alone.
 */
async function sweepAbandonedSchemas(): Promise<void> {
  const { rows } = await admin(`select nspname from pg_namespace where nspname like 'verq\\_test\\_%'`);
  for (const row of rows) {
    const name = String(row.nspname);
    const pid = Number(/^verq_test_(\d+)_[0-9a-f]+$/.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid !== process.pid && gone(pid))
      await admin(`drop schema if exists ${name} cascade`).catch(() => {});
  }
}

/** Runs one statement on the test server with a connection of its own. */
export async function admin(statement: string): Promise<{ readonly rows: readonly Record<string, unknown>[] }> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  client.on("error", () => {});
  await client.connect();
  try {
    return await client.query(statement);
  } finally {
    await client.end();
  }
}
