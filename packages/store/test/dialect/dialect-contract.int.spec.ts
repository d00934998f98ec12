import fs from "node:fs";
import {
  ENGINES,
  createPooledTestDatabase,
  createTestDatabase,
  engineAvailable,
  pgbouncerAvailable,
  type Engine,
  type TestDatabase,
} from "@verq/testing";
import { describe } from "vitest";
import type { VerqStore } from "../../src/index.ts";
import { diskOf } from "../helpers/disk-room.ts";
import { SQLITE_PAGE, overwrite } from "../helpers/overwrite.ts";
import { dialectContract, type DialectEngine } from "./dialect-contract.ts";

/** Leaves room for a little more, as database-full.int.spec.ts does: see {@link diskOf}. */
const fill = async (database: TestDatabase, store: VerqStore): Promise<void> => (await diskOf(database, store)).tighten();

/** SQLite: damage is every page after the first (the schema's) overwritten, as in corrupt-database.int.spec.ts. */
const sqlite: DialectEngine = {
  name: "sqlite",
  create: () => createTestDatabase("sqlite"),
  fill,
  damage(database: TestDatabase) {
    const pages = fs.statSync(database.db).size / SQLITE_PAGE;
    for (let page = 1; page < pages; page++) overwrite(database.db, page * SQLITE_PAGE, Buffer.alloc(SQLITE_PAGE, 0x5a));
    return Promise.resolve();
  },
};

/** PostgreSQL: no damage, the server's files are not the test's to break. */
const postgres: DialectEngine = { name: "postgres", create: () => createTestDatabase("postgres"), fill };

/** Every dialect, by the engine it runs on. */
const DIALECTS: Readonly<Record<Engine, DialectEngine>> = { sqlite, postgres };

/**
 * PostgreSQL behind PgBouncer in transaction mode: each transaction may get another server
 * connection. A database of the test's own (the pooler does not pass the `options` that choose a
 * schema), statements unnamed, and the wake-ups listening past the pooler, on the server itself.
 */
const pooled: DialectEngine = {
  name: "postgres through pgbouncer",
  async create() {
    const database = await createPooledTestDatabase();
    return { ...database, open: () => database.open({ listenUrl: database.direct }) };
  },
  fill,
};

describe.skipIf(!((await engineAvailable("postgres")) && pgbouncerAvailable()))(
  "[postgres through pgbouncer] the dialect contract",
  () => {
    dialectContract(pooled);
  },
);

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] the dialect contract`, () => {
    dialectContract(DIALECTS[engine]);
  });
}
