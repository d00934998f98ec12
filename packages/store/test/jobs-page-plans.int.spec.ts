import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import { CompiledQuery } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VerqStore } from "../src/index.ts";
import { jobsPageQueries, selectJobsPage, type JobsPageFilter } from "../src/sql/jobs/selectJobsPage.ts";
import { seedJobRows } from "./helpers/seed-job-rows.ts";

/*
 * The jobs listing's statements read the index their walk names, on both engines, on a table of
 * 200,000 analysed rows: each filter's first page and a page after a cursor, every statement of
 * the walk. No plan scans the table; on SQLite none sorts every match (PostgreSQL's planner may
 * sort a range it read from the index, see below). With VERQ_PRINT_PLANS=1 the plans are printed.
 */

const ROWS = 200_000;

/** Each filter and the index its walk reads (the primary key is named per engine). */
const CASES: readonly [JobsPageFilter, string][] = [
  [{}, "PRIMARY"],
  [{ idPrefix: "job-12" }, "PRIMARY"],
  [{ queue: "mail" }, "PRIMARY"],
  [{ kind: "mail.send" }, "PRIMARY"],
  [{ state: "pending" }, "jobs_pending_due"],
  [{ state: "pending", queue: "mail" }, "jobs_pending_due"],
  [{ state: "pending", kind: "mail.send" }, "jobs_pending_due"],
  [{ state: "leased" }, "jobs_leased"],
  [{ state: "leased", queue: "default" }, "jobs_leased"],
  [{ state: "done" }, "jobs_finished_updated"],
  [{ state: "done", queue: "mail", kind: "mail.send" }, "jobs_finished_updated"],
  [{ state: "dead" }, "jobs_dead_since"],
  [{ state: "dead", reason: "exhausted" }, "jobs_dead_since"],
  [{ reason: "exhausted", queue: "mail" }, "jobs_dead_since"],
  [{ state: "done", idPrefix: "job-1" }, "jobs_finished_updated"],
];

const PRIMARY = { sqlite: "sqlite_autoindex_jobs_1", postgres: "jobs_pkey" } as const;

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] the plans of the jobs listing`, () => {
    let database: TestDatabase;
    let store: VerqStore;

    beforeAll(async () => {
      database = await createTestDatabase(engine, "jobs-page-plans.sqlite");
      store = await database.open();
      await seedJobRows(store.db, engine, ROWS);
    }, 120_000);
    afterAll(async () => {
      await store?.close();
      await database?.dispose();
    });

    /** The plan of one statement, one line per node. */
    async function plan(compiled: CompiledQuery): Promise<string[]> {
      const prefix = engine === "sqlite" ? "explain query plan " : "explain ";
      const { rows } = await store.db.executeQuery(CompiledQuery.raw(prefix + compiled.sql, [...compiled.parameters]));
      return rows.map((row) => String((row as Record<string, unknown>)[engine === "sqlite" ? "detail" : "QUERY PLAN"]));
    }

    for (const [filter, index] of CASES) {
      it(`${JSON.stringify(filter)} reads ${index} on its first page and after a cursor, never a scan of the table`, async () => {
        const first = await selectJobsPage(store.db, store.dialect.statements, filter, null, 50);
        expect(first.jobs).toHaveLength(50);
        expect(first.last).not.toBeNull();
        const name = index === "PRIMARY" ? PRIMARY[engine] : index;
        const statements = [
          ...jobsPageQueries(store.db, store.dialect.statements, filter, null),
          ...jobsPageQueries(store.db, store.dialect.statements, filter, first.last),
        ];
        for (const statement of statements) {
          const lines = await plan(statement.limit(51).compile());
          if (process.env.VERQ_PRINT_PLANS === "1") console.log(`${engine} ${JSON.stringify(filter)}\n  ${lines.join("\n  ")}`);
          expect(lines.join("\n"), "the walk's index").toContain(name);
          for (const line of lines) {
            expect(line, "a scan of the table").not.toMatch(/^SCAN jobs$|Seq Scan/);
            // PostgreSQL's planner may sort what it read from the walk's index (an id prefix's range
            // as a bitmap, the dead jobs before a cursor) when it expects few rows; SQLite's plans
            // are fixed, and never sort the whole match.
            if (engine === "sqlite") {
              expect(line, "a sort of every match").not.toMatch(/USE TEMP B-TREE FOR ORDER BY/);
            }
          }
        }
      });
    }
  });
}
