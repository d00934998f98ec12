import type { Job } from "@verq/core";
import { createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import { CompiledQuery, Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JobQueue } from "../src/index.ts";
import { postgresStoreDialect } from "../src/dialect/postgres-dialect.ts";
import { preparedStatements, preparingPool, type PreparedStatements } from "../src/dialect/postgres-prepared.ts";
import type { StoreDialect } from "../src/dialect/store-dialect.ts";
import { localWakeups } from "../src/dialect/wakeups.ts";
import type { VerqDatabase } from "../src/schema.ts";
import { insertEventRows, type EventRow } from "../src/sql/events/insertEventRows.ts";
import { appendMovedJobs } from "../src/sql/jobs/appendMovedJobs.ts";
import { insertJobAlone } from "../src/sql/jobs/insertJobAlone.ts";
import { insertJobRows } from "../src/sql/jobs/insertJobRows.ts";
import { selectArchivedJobs } from "../src/sql/jobs/selectArchivedJobs.ts";
import { selectClaimCandidates } from "../src/sql/jobs/selectClaimCandidates.ts";
import { selectJobsById } from "../src/sql/jobs/selectJobsById.ts";
import { updateJobRows } from "../src/sql/jobs/updateJobRows.ts";
import { selectQueueLoads } from "../src/sql/queues/selectQueueLoads.ts";

/** Jobs in the table whose plans are checked, three events each. */
const JOBS = 100_000;
const NOW = 10_000_000;

/**
 * 100,000 jobs (a tenth pending, a tenth leased with expired leases, the rest done; two queues,
 * some of a kind, some in ordering groups) and three events each, in tables that autovacuum
 * leaves alone: never analysed until the test says so.
 */
async function seed(db: Kysely<VerqDatabase>): Promise<void> {
  await sql`alter table jobs set (autovacuum_enabled = off)`.execute(db);
  await sql`alter table events set (autovacuum_enabled = off)`.execute(db);
  await sql`insert into events (stream_type, stream_id, version, type, data, at_ms)
    select 'job', 'job-' || g, v, 'job.seeded', '{"at":1000}', 1000 + g
    from generate_series(1, ${JOBS}::int) g, generate_series(1, 3) v`.execute(db);
  await sql`insert into jobs (id, payload, state, token, attempts, max_attempts, deadline, available_at, owner, lease_until,
      reason, dead_since, ordering_key, lease_expiries, enqueued_at, enqueue_position, updated_at, version, queue, priority,
      kind, last_failure)
    select 'job-' || g, '{"n":1}', case g % 10 when 0 then 'pending' when 1 then 'leased' else 'done' end,
      1, 1, 5, ${NOW * 10}::bigint, 1000 + g, case when g % 10 = 1 then 'w' end, case when g % 10 = 1 then 5000 + g end,
      null, null, case when g % 20 = 0 then 'group-' || (g % 50) end, 0, 1000 + g, 3 * g, 1000 + g, 3,
      case when g % 5 = 0 then 'other' else 'default' end, 0, case when g % 3 = 0 then 'mail' end, null
    from generate_series(1, ${JOBS}::int) g`.execute(db);
}

/** Whether `jobs` and `events` were never analysed (their row count unknown to the planner), or were. */
async function analysed(db: Kysely<VerqDatabase>): Promise<boolean[]> {
  const { rows } = await sql<{ reltuples: number; analysed: boolean }>`select c.reltuples,
      (s.last_analyze is not null or s.last_autoanalyze is not null) as analysed
    from pg_class c join pg_stat_user_tables s on s.relid = c.oid
    where c.oid in ('jobs'::regclass, 'events'::regclass) order by c.relname`.execute(db);
  return rows.map((row) => row.analysed || Number(row.reltuples) >= 0);
}

/** Thrown to roll the capture's transaction back. */
class RolledBack extends Error {}

/**
 * The statements of the job hot path for `batch` jobs, as the store's SQL builds them, with the
 * values it binds, in the order a worker's transactions run them (the claim's `set local` among
 * them): loads by id, the event appends (insert-or-nothing and checked), the row update and
 * insert, the archive lookup, the lone enqueue's one statement, the queue loads and the claim's candidate selects. Nothing stays
 * written.
 */
async function hotPath(db: Kysely<VerqDatabase>, dialect: StoreDialect, captured: CompiledQuery[], batch: number) {
  captured.length = 0;
  await db
    .transaction()
    .execute(async (trx) => {
      // A finish: pending jobs loaded by id, their events appended, their rows moved on.
      const ids = Array.from({ length: batch }, (_, i) => `job-${10 * (i + 1)}`);
      const jobs = [...(await selectJobsById(trx, dialect, ids)).values()];
      expect(jobs).toHaveLength(batch);
      const events = (list: readonly Job[], version: (job: Job) => number): EventRow[] =>
        list.map((job) => ({ streamId: job.id, version: version(job), type: "job.checked", data: "{}", at: NOW }));
      await insertEventRows(
        trx,
        dialect,
        "job",
        events(jobs, (job) => job.version + 1),
        "fail",
      );
      const moved = (list: readonly Job[]) =>
        list.map((job) => ({
          after: {
            ...job,
            state: "leased" as const,
            owner: "w",
            leaseUntil: NOW + 1,
            token: job.token + 1,
            version: job.version + 1,
          },
          beforeVersion: job.version,
        }));
      await updateJobRows(trx, dialect, moved(jobs));
      // An enqueue: the archive lookup, the first events insert-or-nothing, the new rows.
      const fresh = jobs.map((job) => ({ ...job, id: `new-${job.id}`, version: 1 }));
      await selectArchivedJobs(
        trx,
        dialect,
        fresh.map((job) => job.id),
      );
      const positions = await insertEventRows(
        trx,
        dialect,
        "job",
        events(fresh, () => 1),
        "skip",
      );
      await insertJobRows(
        trx,
        dialect,
        fresh.map((job) => ({ job, payloadJson: "{}", enqueuePosition: positions.get(`1:${job.id}`) ?? 0 })),
      );
      // A lone enqueue: its event, its row and its wake-up in one statement.
      const lone = { ...(fresh[0] as Job), id: "lone-job" };
      const wake = { channel: "verq_plans", payload: "" };
      expect(
        await insertJobAlone(trx, dialect, { job: lone, payloadJson: "{}" }, { type: "job.enqueued", data: "{}", at: NOW }, wake),
      ).not.toBeNull();
      // A claim: the queue loads, the candidates (every queue, and of kinds), their events and rows.
      await selectQueueLoads(trx, dialect, ["default", "other", "limited"]);
      // "other" as a full queue: its expired leases only.
      const queues = { expired: ["default", "other"], due: ["default"] };
      const candidates = await selectClaimCandidates(trx, dialect, NOW, batch, queues);
      await selectClaimCandidates(trx, dialect, NOW, batch, queues, { names: ["mail"], kindless: true });
      expect(candidates.length).toBeGreaterThan(0);
      await insertEventRows(
        trx,
        dialect,
        "job",
        events(candidates, (job) => job.version + 1),
        "fail",
      );
      await updateJobRows(trx, dialect, moved(candidates));
      // The same jobs moving on again, their events and rows in one statement.
      const again = moved(candidates).map((change) => change.after);
      await appendMovedJobs(
        trx,
        dialect,
        events(again, (job) => job.version + 1),
        moved(again),
      );
      throw new RolledBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
  return captured.filter((query) => !/^(begin|rollback|commit)$/.test(query.sql));
}

/** One plan that reads `jobs` or `events` whole: which statement, how it was planned, and the plan. */
interface SeqScan {
  readonly statement: string;
  readonly how: string;
  readonly plan: string;
}

/**
 * Replays `queries` in one transaction, in order (a `set local` is run as it is), and explains
 * every other one twice: as an unnamed statement with its values bound (the plan of a run with
 * those values, as `preparedStatements: false` runs them and as a prepared statement's first
 * runs are planned), and, for the statements the store prepares, its generic plan (the plan a
 * prepared statement keeps after its fifth run). Returns every plan that scans `jobs` or
 * `events` whole.
 */
async function seqScans(
  db: Kysely<VerqDatabase>,
  prepared: PreparedStatements,
  queries: readonly CompiledQuery[],
  how: string,
): Promise<SeqScan[]> {
  const found: SeqScan[] = [];
  const explain = async (trx: Kysely<VerqDatabase>, text: string, parameters: readonly unknown[], mode: string) => {
    const { rows } = await trx.executeQuery<{ "QUERY PLAN": string }>(CompiledQuery.raw(text, [...parameters]));
    // Without the values of long arrays, which the plan of a run with its values spells out.
    const plan = rows.map((row) => row["QUERY PLAN"].replace(/'\{[^']{60,}\}'/g, "'{…}'")).join("\n");
    if (/Seq Scan on (jobs|events)\b/.test(plan)) found.push({ statement: text.slice(0, 100), how: `${how}, ${mode}`, plan });
  };
  await db.transaction().execute(async (trx) => {
    for (const query of queries) {
      if (/^set /.test(query.sql)) {
        await trx.executeQuery(query);
        continue;
      }
      await explain(trx, `explain ${query.sql}`, query.parameters, "with its values");
      const name = prepared.nameOf(query.sql);
      if (name === undefined) {
        // Every statement of the hot path that reads jobs or events is one the store prepares.
        expect(query.sql).not.toMatch(/\b(jobs|events)\b/);
        continue;
      }
      await sql`set local plan_cache_mode = force_generic_plan`.execute(trx);
      const nulls = query.parameters.map(() => "null").join(", ");
      await explain(trx, `explain execute ${name}(${nulls})`, [], "generic plan");
      await sql`set local plan_cache_mode = auto`.execute(trx);
    }
  });
  return found;
}

describe.skipIf(!(await engineAvailable("postgres")))("[postgres] plans of the job hot path", () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let db: Kysely<VerqDatabase>;
  const captured: CompiledQuery[] = [];
  const prepared = preparedStatements(true);
  const dialect = postgresStoreDialect(localWakeups(), prepared);

  beforeAll(async () => {
    database = await createTestDatabase("postgres");
    const store = await database.open();
    await new JobQueue(store).setQueueLimit("limited", { maxLeased: 10 });
    await store.close();
    // The store's own statements and naming, on one connection whose statements the test sees.
    pool = new pg.Pool({ connectionString: database.db, max: 1 });
    db = new Kysely<VerqDatabase>({
      dialect: new PostgresDialect({ pool: preparingPool(pool, prepared) }),
      log: (event) => {
        if (event.level === "query") captured.push(event.query);
      },
    });
    await seed(db);
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.dispose();
  });

  it("every statement reaches jobs and events through an index on 100,000 jobs, never analysed, then analysed", async () => {
    expect(await analysed(db)).toEqual([false, false]);
    const found: SeqScan[] = [];
    for (const batch of [100, 1_000]) {
      const queries = await hotPath(db, dialect, captured, batch);
      expect(queries.length).toBeGreaterThanOrEqual(12);
      found.push(...(await seqScans(db, prepared, queries, `never analysed, ${batch} jobs`)));
    }
    expect(await analysed(db)).toEqual([false, false]);

    await sql`analyze jobs`.execute(db);
    await sql`analyze events`.execute(db);
    expect(await analysed(db)).toEqual([true, true]);
    for (const batch of [100, 1_000]) {
      const queries = await hotPath(db, dialect, captured, batch);
      found.push(...(await seqScans(db, prepared, queries, `analysed, ${batch} jobs`)));
    }
    expect(found).toEqual([]);
  });
});
