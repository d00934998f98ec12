import { isVerqError } from "@verq/core";
import { createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JobQueue, openStore, type VerqStore } from "../src/index.ts";

/** The statements prepared on the connection of a store of one connection, by text. */
async function preparedOn(store: VerqStore): Promise<Map<string, string>> {
  const { rows } = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(
    store.db,
  );
  return new Map(rows.map((row) => [row.statement, row.name]));
}

/**
 * A worker's work on `n` jobs: a bulk enqueue, the same enqueue again (every job already there,
 * so loaded by id and refused as already enqueued), a lone enqueue in a queue no claim asks for
 * (one statement of its own) and again (the ordinary path answers), claims from a limited and an unlimited queue
 * with and without kinds, and the finishes. Returns how many jobs were claimed.
 */
async function rounds(queue: JobQueue, prefix: string, n: number): Promise<number> {
  const jobs = Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-${i}`,
    payload: { i },
    queue: i % 2 === 0 ? "default" : "limited",
    ...(i % 3 === 0 ? { kind: "mail" } : {}),
  }));
  expect((await queue.enqueueMany(jobs)).every((r) => r.created)).toBe(true);
  expect((await queue.enqueueMany(jobs)).some((r) => r.created)).toBe(false);
  const lone = { id: `${prefix}-lone`, payload: { lone: true }, queue: "elsewhere" };
  expect((await queue.enqueue(lone)).created).toBe(true);
  expect((await queue.enqueue(lone)).created).toBe(false);
  const queues = ["default", "limited"];
  const first = await queue.claimMany("w", Math.ceil(n / 2), { queues });
  const second = await queue.claimMany("w", n, { queues, kinds: { names: ["mail"], kindless: true } });
  const claimed = [...first, ...second];
  const accepted = await queue.finishMany(claimed.map((job) => ({ id: job.id, token: job.token, outcome: "ok" as const })));
  expect(accepted.every(Boolean)).toBe(true);
  return claimed.length;
}

/** What every statement of the job hot path looks like on PostgreSQL: one text each, arrays for the batches. */
const HOT_PATH = {
  "jobs by id": /^select .* from jobs where id = any\(\(select \$1::text\[\]\)::text\[\]\)$/s,
  "archived jobs by id": /^select .* from job_archive where id = any\(\(select \$1::text\[\]\)::text\[\]\)$/s,
  "event append, insert-or-nothing":
    /^insert into events .* select \* from unnest\(.*\) on conflict .* do nothing returning stream_id, version, position$/s,
  "job rows": /^insert into jobs .* select \* from unnest\(/s,
  "lone enqueue":
    /^with v as \(select \* from unnest\(.*\)\), e as \(insert into events .* on conflict .* do nothing returning position\), j as \(insert into jobs .*pg_notify/s,
  "events and rows of jobs that moved on":
    /^with v as \(select \* from unnest\(.*\) as v\(.*\)\), appended as \(insert into events .* from v\), moved as \(update jobs set .* from v where \(jobs\.id = any\(\(select \$1::text\[\]\)::text\[\]\) and jobs\.id = v\.column1\) and jobs\.version = v\.column\d+ returning 1\) select count\(\*\) from moved$/s,
  "expired leases and due jobs":
    /^with expired as \((?!.*j\.kind)select .* from jobs j\s+where j\.state = 'leased' and j\.queue = \$\d+ .* limit \$\d+ for update skip locked\),\s+due as \(select .* from jobs j\s+where j\.state = 'pending' and j\.queue = \$\d+ .* limit \$\d+ - \(select count\(\*\) from expired\) for update skip locked\)\s+select expired\.\*, 0 from expired union all select due\.\*, 1 from due$/s,
  "expired leases and due jobs of kinds":
    /^with expired as \(select .* from jobs j\s+where j\.state = 'leased' .* and \(j\.kind = any\(\$\d+::text\[\]\) or j\.kind is null\).* limit \$\d+ for update skip locked\),\s+due as \(select .* from jobs j\s+where j\.state = 'pending' .* and \(j\.kind = any\(\$\d+::text\[\]\) or j\.kind is null\).* for update skip locked\)/s,
  "queue limits, with the claim's planner settings":
    /^select claimed\.\* from \(select set_config\('enable_sort', 'off', true\), set_config\('jit', 'off', true\)\) as claim_settings\s+left join lateral \(select name, max_leased from queues where name = any\(\(select \$1::text\[\]\)::text\[\]\)/s,
  "leased counts":
    /^select queue, count\(\*\) as n from jobs where state = 'leased' and queue = any\(\(select \$1::text\[\]\)::text\[\]\)/s,
} as const;

describe.skipIf(!(await engineAvailable("postgres")))("[postgres] the job hot path's prepared statements", () => {
  let database: TestDatabase;
  const stores: VerqStore[] = [];
  // One connection: the statements it prepared are those `pg_prepared_statements` lists.
  const open = async (options: { preparedStatements?: boolean } = {}) => {
    const store = await openStore({ url: database.db, poolSize: 1, ...options });
    stores.push(store);
    return store;
  };
  beforeEach(async () => {
    database = await createTestDatabase("postgres");
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await database.dispose();
  });

  it("runs as named statements, one text each whatever the batch size, prepared once per connection", async () => {
    const store = await open();
    const queue = new JobQueue(store);
    await queue.setQueueLimit("limited", { maxLeased: 1_000 });
    expect(await rounds(queue, "a", 100)).toBe(100);
    const prepared = await preparedOn(store);
    for (const [what, shape] of Object.entries(HOT_PATH)) {
      const texts = [...prepared.keys()].filter((text) => shape.test(text));
      expect(texts, what).toHaveLength(1);
      expect(prepared.get(texts[0] ?? ""), what).toMatch(/^verq_[0-9a-f]{24}$/);
    }
    // No statement of any length of list: no VALUES list, no IN list of placeholders.
    for (const text of prepared.keys()) expect(text).not.toMatch(/values \(|in \(\$/);

    // Other batch sizes run the same statements: nothing more is prepared.
    expect(await rounds(queue, "b", 37)).toBe(37);
    expect(await rounds(queue, "c", 1)).toBe(1);
    expect(await preparedOn(store)).toEqual(prepared);
  });

  it("with preparedStatements: false runs the same work with nothing prepared; anything but a boolean is refused", async () => {
    const store = await open({ preparedStatements: false });
    const queue = new JobQueue(store);
    await queue.setQueueLimit("limited", { maxLeased: 1_000 });
    expect(await rounds(queue, "a", 100)).toBe(100);
    expect((await queue.stats()).byState).toMatchObject({ done: 100 });
    expect(await preparedOn(store)).toEqual(new Map());

    const refused = await openStore({ url: database.db, preparedStatements: "no" as unknown as boolean }).then(
      async (opened) => {
        await opened.close();
        return null;
      },
      (error: unknown) => error,
    );
    expect(isVerqError(refused, "VERQ_INVALID_ARGUMENT")).toBe(true);
  });
});
