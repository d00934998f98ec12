import { TEST_POSTGRES_URL, admin, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../src/main.ts";

/** Runs `verq` in this process. */
async function verq(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runCli(args, { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`) });
  return { code, out, err };
}

/** The tables in `schema`, by name. */
async function tablesIn(schema: string): Promise<string[]> {
  const { rows } = await admin(`select tablename from pg_tables where schemaname = '${schema}' order by tablename`);
  return rows.map((row) => String(row.tablename));
}

/** The test server's URL as docs/cli.md writes it: `scheme://…?options=-c%20search_path%3D<schema>`. */
function documentedUrl(scheme: "postgres" | "postgresql", schema: string): string {
  const base = new URL(TEST_POSTGRES_URL);
  return `${scheme}://${base.username}@${base.host}${base.pathname}?options=-c%20search_path%3D${schema}`;
}

describe.skipIf(!(await engineAvailable("postgres")))("S1: --db URLs as docs/cli.md writes them", () => {
  const databases: TestDatabase[] = [];
  afterEach(async () => {
    for (const database of databases.splice(0)) await database.dispose();
  });
  const schema = async (): Promise<string> => {
    const database = await createTestDatabase("postgres");
    databases.push(database);
    if (database.schema === null) throw new Error("a PostgreSQL test database has a schema");
    return database.schema;
  };

  it("postgres:// and postgresql:// with ?options=-c%20search_path%3Dname: verq's tables go into that schema, and both schemes see one store", async () => {
    const name = await schema();
    expect(await tablesIn(name)).toEqual([]);
    const enqueued = await verq("jobs", "enqueue", "--db", documentedUrl("postgres", name), "--id", "u-1", "--payload", "{}");
    expect([enqueued.code, enqueued.err]).toEqual([0, ""]);
    expect(await tablesIn(name)).toEqual(expect.arrayContaining(["events", "jobs", "ledger", "processed"]));
    const shown = await verq("jobs", "show", "u-1", "--db", documentedUrl("postgresql", name), "--json");
    expect([shown.code, JSON.parse(shown.out)]).toEqual([0, expect.objectContaining({ id: "u-1", state: "pending" })]);
    const rows = await admin(`select id, state from ${name}.jobs`);
    expect(rows.rows).toEqual([{ id: "u-1", state: "pending" }]);
  });

  it("a search path naming a schema that does not exist: exit 1, VERQ_STORE_UNREACHABLE, and no schema or table is created", async () => {
    const missing = `verq_missing_${process.pid}`;
    await admin(`drop schema if exists ${missing} cascade`);
    const run = await verq("relay", "stats", "--db", documentedUrl("postgres", missing));
    expect([run.code, run.out]).toEqual([1, ""]);
    expect(run.err).toMatch(/^verq: VERQ_STORE_UNREACHABLE: cannot use PostgreSQL at [^\n]+\n$/);
    const { rows } = await admin(`select count(*)::int as n from pg_namespace where nspname = '${missing}'`);
    expect(rows).toEqual([{ n: 0 }]);
  });
});
