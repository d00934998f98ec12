import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { initQueue } from "@verq/adapters/files";
import { VERQ_MIGRATION_TABLES, VERQ_TABLES } from "@verq/store";
import { admin, createTestDatabase, engineAvailable, tempDir, type TestDatabase } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";
import { buildProgram } from "../src/main.ts";
import { commandPath, leafCommands } from "../src/usage.ts";
import { runInProcess } from "./support/cli-sandbox.ts";

/*
 * A store is created only by a command that writes, or by `verq init`. Every command that only
 * reads refuses a store that is not there, on both engines, and creates nothing: a SQLite path
 * that does not exist is exit 4 `VERQ_FILE_NOT_FOUND`; a PostgreSQL database (schema) without
 * verq's tables is exit 4 `VERQ_STORE_NOT_INITIALIZED`, and no table is made in it.
 */

/** `@DB` and `@ROOT` stand for the store and a file queue. */
type Line = readonly string[];

/** Every command that never creates a store, with a command line that reaches its store. */
const READ_ONLY: Record<string, Line> = {
  "jobs stats": ["jobs", "stats", "--db", "@DB"],
  "jobs dead": ["jobs", "dead", "--db", "@DB"],
  "jobs list": ["jobs", "list", "--state", "pending", "--db", "@DB"],
  "jobs show": ["jobs", "show", "j1", "--db", "@DB"],
  "relay show": ["relay", "show", "g1", "--db", "@DB"],
  "relay stats": ["relay", "stats", "--db", "@DB"],
  "files errors": ["files", "errors", "@ROOT", "--db", "@DB"],
  "files dups": ["files", "dups", "--db", "@DB"],
  "files order-check": ["files", "order-check", "--db", "@DB"],
  "files replay": ["files", "replay", "@ROOT", "bad.json", "--db", "@DB"],
  metrics: ["metrics", "--db", "@DB", "--port", "0"],
  check: ["check", "--db", "@DB"],
  dashboard: ["dashboard", "--db", "@DB", "--port", "0"],
  events: ["events", "--db", "@DB"],
  "schedules list": ["schedules", "list", "--db", "@DB"],
};

/** The read-only forms of commands that otherwise write. */
const READ_ONLY_FORMS: Record<string, Line> = {
  "jobs prune --dry-run": ["jobs", "prune", "--db", "@DB", "--done-older-than", "7d", "--dry-run"],
  "jobs redrive --all --dry-run": ["jobs", "redrive", "--all", "--db", "@DB", "--note", "OPS-1", "--rate", "5/s", "--dry-run"],
  "events --name": ["events", "--db", "@DB", "--name", "audit"],
};

/** Every command that may create the store it is given (it writes), and `init`, which is there to. */
const WRITES = [
  "init",
  "jobs enqueue",
  "jobs work",
  "jobs finish",
  "jobs redrive",
  "jobs prune",
  "jobs cancel",
  "queues limit",
  "receiver serve",
  "relay serve",
  "relay resolve",
  "relay reprocess",
  "relay purge",
  "files consume",
  "schedules add",
  "schedules remove",
  "schedules run",
];

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A folder of the test's own with a file queue in it (`queue/`, `bad.json` in its error/). */
function workFolder(): { dir: string; root: string } {
  const dir = tempDir("verq-read-only-");
  cleanups.push(dir.remove);
  const root = initQueue(join(dir.path, "queue")).root;
  return { dir: dir.path, root };
}

const fill = (line: Line, db: string, root: string): string[] => line.map((a) => (a === "@DB" ? db : a === "@ROOT" ? root : a));

describe("which commands create a store", () => {
  it("every command that takes --db is listed as read-only or as one that writes", () => {
    const program = buildProgram({ out: () => {}, err: () => {} }, () => {});
    const withDb = leafCommands(program)
      .filter((c) => c.options.some((o) => o.long === "--db"))
      .map((c) => commandPath(c).replace(/^verq /, ""))
      .sort();
    expect(withDb).toEqual([...Object.keys(READ_ONLY), ...WRITES].sort());
  });
});

describe("[sqlite] a read-only command on a path that does not exist", () => {
  it("exit 4, VERQ_FILE_NOT_FOUND naming the path and how to create a store, and no file is created", async () => {
    for (const [name, line] of Object.entries({ ...READ_ONLY, ...READ_ONLY_FORMS })) {
      const { dir, root } = workFolder();
      const db = join(dir, "q.sqlit");
      const result = await runInProcess(fill(line, db, root));
      expect({ name, code: result.code, out: result.out }).toEqual({ name, code: 4, out: "" });
      expect(result.err, name).toBe(
        `verq: VERQ_FILE_NOT_FOUND: no database at ${db}; check --db (verq init --db ${db} creates a store)\n`,
      );
      expect(readdirSync(dir), name).toEqual(["queue"]);
    }
  });

  it("with --json the same error is the JSON object on stdout", async () => {
    const { dir } = workFolder();
    const db = join(dir, "q.sqlit");
    const result = await runInProcess(["jobs", "stats", "--db", db, "--json"]);
    expect(result.code).toBe(4);
    expect(JSON.parse(result.out)).toEqual({
      error: { code: "VERQ_FILE_NOT_FOUND", message: expect.stringContaining(db) as string },
    });
    expect(existsSync(db)).toBe(false);
  });

  it("a SQLite file that is not a verq store (no verq tables): exit 4, VERQ_STORE_NOT_INITIALIZED, the file left as it was", async () => {
    const { dir } = workFolder();
    const db = join(dir, "other.sqlite");
    // Another program's SQLite file.
    const other = new Database(db);
    other.exec("create table orders (id text primary key)");
    other.close();
    const result = await runInProcess(["jobs", "stats", "--db", db]);
    expect(result.code).toBe(4);
    expect(result.err).toMatch(/^verq: VERQ_STORE_NOT_INITIALIZED: no verq store at [^\n]*other\.sqlite: .*verq init --db/);
    expect(readdirSync(dir).sort()).toEqual(["other.sqlite", "queue"]);
  });
});

describe("[sqlite] verq init", () => {
  it("creates and migrates the store and says so; again, it says the store is up to date; read-only commands then work", async () => {
    const { dir } = workFolder();
    const db = join(dir, "verq.sqlite");
    const created = await runInProcess(["init", "--db", db]);
    expect(created).toEqual({
      code: 0,
      out: expect.stringMatching(
        new RegExp(
          `^created a verq store at ${db.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: applied \\d+ migrations \\(001-initial … \\d{3}-[a-z-]+\\); tables: ${VERQ_TABLES.join(", ")}\\n$`,
        ),
      ) as string,
      err: "",
    });
    expect(existsSync(db)).toBe(true);
    const again = await runInProcess(["init", "--db", db, "--json"]);
    expect({ code: again.code, json: JSON.parse(again.out) as unknown }).toEqual({
      code: 0,
      json: { db, schema: null, created: false, applied: [], tables: [...VERQ_TABLES] },
    });
    const stats = await runInProcess(["jobs", "stats", "--db", db]);
    expect([stats.code, stats.err]).toEqual([0, ""]);
  });

  it("a folder that does not exist: exit 4 and nothing created; a write command still creates its store", async () => {
    const { dir } = workFolder();
    const missing = await runInProcess(["init", "--db", join(dir, "no", "verq.sqlite")]);
    expect(missing.code).toBe(4);
    expect(missing.err).toMatch(/^verq: VERQ_FILE_NOT_FOUND: no folder /);
    const db = join(dir, "w.sqlite");
    const enqueued = await runInProcess(["jobs", "enqueue", "--db", db, "--id", "a", "--payload", "{}"]);
    expect([enqueued.code, existsSync(db)]).toEqual([0, true]);
  });
});

describe.skipIf(!(await engineAvailable("postgres")))("[postgres] a read-only command on a schema without verq's tables", () => {
  const fresh = async (): Promise<TestDatabase> => {
    const database = await createTestDatabase("postgres");
    cleanups.push(() => database.dispose());
    return database;
  };
  const tablesIn = async (schema: string) =>
    (await admin(`select tablename from pg_tables where schemaname = '${schema}' order by tablename`)).rows.map((r) =>
      String(r.tablename),
    );

  it("exit 4, VERQ_STORE_NOT_INITIALIZED naming the server and the schema, never the password; no table is created", async () => {
    const database = await fresh();
    const { root } = workFolder();
    for (const [name, line] of Object.entries({ ...READ_ONLY, ...READ_ONLY_FORMS })) {
      const result = await runInProcess(fill(line, database.db, root));
      expect({ name, code: result.code, out: result.out }).toEqual({ name, code: 4, out: "" });
      expect(result.err, name).toMatch(
        new RegExp(
          `^verq: VERQ_STORE_NOT_INITIALIZED: no verq store at [^\\n]*, schema ${database.schema!}: [^\\n]*verq init --db[^\\n]*\\n$`,
        ),
      );
      expect(result.err, name).not.toContain("postgres://");
    }
    expect(await tablesIn(database.schema!)).toEqual([]);
  });

  it("verq init creates verq's tables in the schema and says so; a read-only command then reads them", async () => {
    const database = await fresh();
    const created = await runInProcess(["init", "--db", database.db, "--json"]);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.out)).toEqual({
      db: expect.stringMatching(/^[^/@]+\/[^/]+$/) as string,
      schema: database.schema,
      created: true,
      applied: expect.arrayContaining(["001-initial", "010-subscriptions"]) as string[],
      tables: [...VERQ_TABLES],
    });
    expect(await tablesIn(database.schema!)).toEqual([...VERQ_TABLES, ...VERQ_MIGRATION_TABLES].sort());
    const stats = await runInProcess(["relay", "stats", "--db", database.db]);
    expect([stats.code, stats.err]).toEqual([0, ""]);
  });
});
