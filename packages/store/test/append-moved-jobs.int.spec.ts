import { isVerqError, type Job } from "@verq/core";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JobQueue, type VerqStore } from "../src/index.ts";
import { appendMovedJobs } from "../src/sql/jobs/appendMovedJobs.ts";
import type { EventRow } from "../src/sql/events/insertEventRows.ts";
import { createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";

/**
 * On PostgreSQL, jobs that only move on have their events appended and their rows rewritten by
 * one statement: both checks of the two statements it replaces hold in it. A row that is not at
 * the version decided on is never overwritten, even where its events' versions are free.
 */
describe.skipIf(!(await engineAvailable("postgres")))("[postgres] events and rows of moved jobs in one statement", () => {
  const NOW = 1_700_000_000_000;
  let database: TestDatabase;
  let store: VerqStore;
  let queue: JobQueue;

  beforeEach(async () => {
    database = await createTestDatabase("postgres");
    store = await database.open();
    queue = new JobQueue(store);
    await queue.enqueueMany([
      { id: "a", payload: null },
      { id: "b", payload: null },
    ]);
  });
  afterEach(async () => {
    await store.close();
    await database.dispose();
  });

  const event = (streamId: string, version: number, type = "job.checked"): EventRow => ({
    streamId,
    version,
    type,
    data: `{"at":${NOW}}`,
    at: NOW,
  });
  const leased = (job: Job, version: number): Job => ({
    ...job,
    state: "leased",
    owner: "w",
    leaseUntil: NOW + 1,
    token: job.token + 1,
    version,
  });
  const snapshot = async () => ({
    events: await store.countEvents(),
    rows: (
      await sql<{ id: string; version: number; state: string }>`select id, version, state from jobs order by id`.execute(store.db)
    ).rows,
  });
  const jobs = async () => [(await queue.get("a")) as Job, (await queue.get("b")) as Job];
  const attempt = (events: EventRow[], moved: { after: Job; beforeVersion: number }[]) =>
    // Kysely's own transaction: the store's would decide again on a conflict, as it must.
    store.db
      .transaction()
      .execute((trx) => appendMovedJobs(trx, store.dialect, events, moved))
      .then(
        () => null,
        (error: unknown) => error,
      );

  it("writes several events of one job and its row from its last state, at the version it was decided on", async () => {
    const [a, b] = await jobs();
    await attempt(
      [event("a", 2), event("a", 3), event("b", 2)],
      [
        { after: leased(a as Job, 3), beforeVersion: 1 },
        { after: leased(b as Job, 2), beforeVersion: 1 },
      ],
    );
    expect((await snapshot()).rows).toEqual([
      { id: "a", version: 3, state: "leased" },
      { id: "b", version: 2, state: "leased" },
    ]);
    const { rows } = await sql<{
      stream_id: string;
      version: number;
    }>`select stream_id, version from events where stream_id in ('a', 'b') order by position`.execute(store.db);
    expect(rows.map((r) => `${r.stream_id}${r.version}`)).toEqual(["a1", "b1", "a2", "a3", "b2"]);
  });

  it("refuses a row no longer at the version decided on, though its events' versions are free: nothing written", async () => {
    const [a, b] = await jobs();
    // Row b moved on behind this decision's back; the log's next version is still free.
    await sql`update jobs set version = 5 where id = 'b'`.execute(store.db);
    const before = await snapshot();
    const refused = await attempt(
      [event("a", 2), event("b", 2)],
      [
        { after: leased(a as Job, 2), beforeVersion: 1 },
        { after: leased(b as Job, 2), beforeVersion: 1 },
      ],
    );
    expect(isVerqError(refused, "VERQ_VERSION_CONFLICT"), String(refused)).toBe(true);
    expect(await snapshot()).toEqual(before);
  });

  it("refuses an event whose version its stream already has: nothing written", async () => {
    const [a, b] = await jobs();
    const before = await snapshot();
    const refused = await attempt(
      [event("a", 2), event("b", 1)],
      [
        { after: leased(a as Job, 2), beforeVersion: 1 },
        { after: leased(b as Job, 1), beforeVersion: 0 },
      ],
    );
    expect(isVerqError(refused, "VERQ_VERSION_CONFLICT"), String(refused)).toBe(true);
    expect(await snapshot()).toEqual(before);
  });
});
