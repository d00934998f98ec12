import { randomUUID } from "node:crypto";
import { readdirSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { JobQueue, openStore, type VerqStore } from "../src/index.ts";
import { TEST_POSTGRES_URL, admin, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";

/** How many migrations the store has: each is recorded once per schema. */
const MIGRATIONS = readdirSync(new URL("../src/migrations/", import.meta.url)).filter((f) => /^\d{3}-.*\.ts$/.test(f)).length;

/**
 * S1: several verq stores share one PostgreSQL database, each in a schema of its own. Each first
 * open creates its own tables and its own migration bookkeeping, whatever the other schemas hold.
 */
describe.skipIf(!(await engineAvailable("postgres")))("PostgreSQL stores in several schemas of one database", () => {
  const databases: TestDatabase[] = [];
  const stores: VerqStore[] = [];
  const schemas: string[] = [];

  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const database of databases.splice(0)) await database.dispose();
    for (const schema of schemas.splice(0)) await admin(`drop schema if exists ${schema} cascade`);
  });

  async function migrations(schema: string): Promise<unknown> {
    return (await admin(`select count(*)::int as n from ${schema}.verq_migrations`)).rows[0];
  }

  it("a fresh schema opens beside one that already holds a store, and each keeps its own jobs", async () => {
    const first = await createTestDatabase("postgres");
    databases.push(first);
    const a = await first.open();
    stores.push(a);
    await new JobQueue(a).enqueue({ id: "in-first", payload: 1 });

    const second = await createTestDatabase("postgres");
    databases.push(second);
    const b = await second.open();
    stores.push(b);
    await new JobQueue(b).enqueue({ id: "in-second", payload: 2 });

    expect((await new JobQueue(a).list("pending")).map((j) => j.id)).toEqual(["in-first"]);
    expect((await new JobQueue(b).list("pending")).map((j) => j.id)).toEqual(["in-second"]);
    expect(await migrations(first.schema!)).toEqual({ n: MIGRATIONS });
    expect(await migrations(second.schema!)).toEqual({ n: MIGRATIONS });
  });

  it("the schema option creates its schema on first open while another schema holds a store", async () => {
    const other = await createTestDatabase("postgres");
    databases.push(other);
    stores.push(await other.open());
    const schema = `verq_option_${process.pid}_${randomUUID().replaceAll("-", "").slice(0, 8)}`;
    schemas.push(schema);
    const store = await openStore({ url: TEST_POSTGRES_URL, schema });
    stores.push(store);
    await new JobQueue(store).enqueue({ id: "own", payload: 1 });
    expect(await migrations(schema)).toEqual({ n: MIGRATIONS });
    expect((await admin(`select id from ${schema}.jobs`)).rows).toEqual([{ id: "own" }]);
    expect((await admin(`select count(*)::int as n from ${other.schema!}.jobs`)).rows[0]).toEqual({ n: 0 });
  });
});

describe.skipIf(!(await engineAvailable("postgres")))("PostgreSQL stores beside schemas that come and go", () => {
  it("first opens succeed while other clients create and drop schemas of their own all along", async () => {
    let churning = true;
    const churn = (async () => {
      for (let i = 0; churning; i++) {
        const schema = `verq_churn_${process.pid}_${i}`;
        await admin(`create schema ${schema}; create table ${schema}.t (id int primary key)`);
        await admin(`drop schema ${schema} cascade`);
      }
    })();
    const opened: string[] = [];
    try {
      for (let round = 0; round < 15; round++) {
        const database = await createTestDatabase("postgres");
        try {
          const store = await database.open();
          opened.push((await store.db.introspection.getTables()).map((t) => t.name).join(","));
          await store.close();
        } finally {
          await database.dispose();
        }
      }
    } finally {
      churning = false;
      await churn;
    }
    expect(opened).toHaveLength(15);
    // Introspection sees the store's own schema only, never a neighbour's tables.
    expect(new Set(opened).size).toBe(1);
    expect(opened[0]?.split(",")).not.toContain("t");
  });
});
