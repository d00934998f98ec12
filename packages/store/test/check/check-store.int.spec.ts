import { ManualClock, classifyCoreCall } from "@verq/core";
import { FileLedger, GuidLedger, JobQueue, checkStore, formatFinding, type VerqStore } from "@verq/store";
import { ENGINES, engineAvailable } from "@verq/testing";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { freshStores } from "../helpers/fresh-store.ts";
import { plantEvent } from "../helpers/plant.ts";
import { buildEveryState, deterministicQueue, runRandomWorkload } from "../helpers/workload.ts";

/** Relay entries in every state (one DONE purged, one claimed again after its purge) and file-queue messages with a duplicate. */
async function relayAndFiles(store: VerqStore, clock: ManualClock): Promise<void> {
  const ledger = new GuidLedger(store, { clock });
  const answer = (guid: string) => ({ kind: "answered", status: 200, body: JSON.stringify({ guid, code: "0000" }) }) as const;
  for (const [i, guid] of ["G-purged", "G-done", "G-unknown", "G-failed", "G-received"].entries()) {
    await ledger.receive({ guid, request: JSON.stringify({ guid, amount: i + 1 }), fingerprint: `f${i}`, maxAttempts: 3 });
    if (guid === "G-received") continue;
    await ledger.send(guid);
    const result =
      guid === "G-unknown"
        ? ({ kind: "no-answer", reason: "TimeoutError" } as const)
        : guid === "G-failed"
          ? ({ kind: "not-sent", reason: "ECONNREFUSED" } as const)
          : answer(guid);
    await ledger.record(guid, 1, classifyCoreCall(guid, result));
    if (guid === "G-purged") clock.advance(10_000);
  }
  expect((await ledger.purge({ retentionMs: 5_000, resendWindowMs: 1_000 })).purged).toBe(1);
  await ledger.receive({ guid: "G-purged", request: "{}", fingerprint: "f-again", maxAttempts: 3 });
  const files = new FileLedger(store, { clock });
  const settle = (claimId: string, file: string, key: string) =>
    files.settle({
      claimId,
      owner: "1@host",
      file,
      recovered: false,
      errorCopyExists: false,
      verdict: { kind: "valid", key, group: "O-1", sequence: 1, amount: 10.5, message: JSON.stringify({ msg_id: key }), file },
    });
  await settle("c1", "a.json", "K1");
  await settle("c2", "b.json", "K1");
  await settle("c3", "c.json", "K2");
}

/** The findings as `verq check` prints them, sorted (the scan's order of stream types follows each engine's collation). */
/** A trace context written behind the log into a job's row. */
const TRACED = '{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}';

const lines = async (store: VerqStore, batchSize = 1_000) =>
  (await checkStore(store, { batchSize })).findings.map(formatFinding).sort();

/** A job claimed once (token 1) and finished with `outcome`, at the clock's time. */
async function finishedJob(queue: JobQueue, id: string, outcome: "ok" | "retry"): Promise<void> {
  await queue.enqueue({ id, payload: { id }, maxAttempts: 5 });
  const job = await queue.claim("w1", { leaseMs: 1_000 });
  expect(job?.id).toBe(id);
  expect(await queue.finish(id, 1, outcome)).toBe(true);
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] checkStore`, () => {
    const stores = freshStores();

    it("passes a store after every job state, a random workload, the relay (with a purge) and the file queue, at every batch size", async () => {
      const { store } = await stores.open(engine);
      const clock = new ManualClock();
      const queue = deterministicQueue(store, clock);
      await buildEveryState(queue, clock);
      await runRandomWorkload(queue, clock, 5, 400);
      await relayAndFiles(store, clock);
      const full = await checkStore(store);
      expect(full.findings).toEqual([]);
      expect(full.ok).toBe(true);
      const total = Number((await sql<{ n: number }>`select count(*) as n from events`.execute(store.db)).rows[0]?.n);
      expect(full.checked.events).toBe(total);
      expect(full.checked.byStreamType).toMatchObject({
        guid: { streams: 5 },
        message: { streams: 3, events: 6 },
        "ledger-audit": { streams: 1, events: 1 },
      });
      // Pages that end inside a stream, and on its last event, give the same verdict and counts.
      for (const batchSize of [1, 2, 7]) expect(await checkStore(store, { batchSize })).toEqual(full);
    });

    it("finds a skipped version (VERSION_GAP)", async () => {
      const { store } = await stores.open(engine);
      const queue = new JobQueue(store, { clock: new ManualClock(1_000) });
      await queue.enqueue({ id: "gap", payload: {} });
      await plantEvent(store, {
        streamType: "job",
        streamId: "gap",
        version: 3,
        type: "job.claimed",
        data: { token: 1, owner: "w1", leaseUntil: 2_000, at: 1_000 },
      });
      await store.rebuildProjections(); // the projection is the fold: only the log is wrong
      expect(await lines(store)).toEqual(["VERSION_GAP job/gap v3 follows v1"]);
      expect(await lines(store, 1)).toEqual(["VERSION_GAP job/gap v3 follows v1"]);
    });

    it("finds a reset token and a skipped one (TOKEN_RESET, TOKEN_SKIP)", async () => {
      const { store } = await stores.open(engine);
      const clock = new ManualClock(1_000);
      const queue = new JobQueue(store, { clock });
      await finishedJob(queue, "reset", "retry"); // pending again, token 1, v4
      await finishedJob(queue, "skip", "retry");
      await plantEvent(store, {
        streamType: "job",
        streamId: "reset",
        version: 4,
        type: "job.claimed",
        data: { token: 1, owner: "w2", leaseUntil: 9_000, at: 5_000 },
      });
      await plantEvent(store, {
        streamType: "job",
        streamId: "skip",
        version: 4,
        type: "job.claimed",
        data: { token: 3, owner: "w2", leaseUntil: 9_000, at: 5_000 },
      });
      await store.rebuildProjections();
      expect(await lines(store)).toEqual([
        "TOKEN_RESET job/reset v4 job.claimed token 1 after token 1",
        "TOKEN_SKIP job/skip v4 job.claimed token 3 after token 1",
      ]);
    });

    it("finds a second accepted finish for one token and a finish for a stale token (DOUBLE_FINISH, STALE_FINISH)", async () => {
      const { store } = await stores.open(engine);
      const clock = new ManualClock(1_000);
      const queue = new JobQueue(store, { clock });
      await finishedJob(queue, "twice", "ok");
      await plantEvent(store, {
        streamType: "job",
        streamId: "twice",
        version: 4,
        type: "job.completed",
        data: { token: 1, at: 1_500 },
      });
      // Worker 1's lease expires, worker 2 takes the job over with token 2; then worker 1's late finish is accepted.
      await queue.enqueue({ id: "stale", payload: {} });
      expect((await queue.claim("w1", { leaseMs: 1_000 }))?.token).toBe(1);
      clock.advance(1_000);
      expect((await queue.claim("w2", { leaseMs: 1_000 }))?.token).toBe(2);
      await plantEvent(store, {
        streamType: "job",
        streamId: "stale",
        version: 5,
        type: "job.completed",
        data: { token: 1, at: 2_500 },
      });
      await store.rebuildProjections();
      expect(await lines(store)).toEqual([
        "DOUBLE_FINISH job/twice v4 job.completed token 1, already finished at v3",
        "STALE_FINISH job/stale v5 job.completed token 1, the job's token is 2",
      ]);
    });

    it("finds projection rows edited or deleted behind the log, and rows no events explain", async () => {
      const { store } = await stores.open(engine);
      const clock = new ManualClock(1_000);
      const queue = deterministicQueue(store, clock);
      await buildEveryState(queue, clock);
      await relayAndFiles(store, clock);
      expect(await lines(store)).toEqual([]);
      const [redriven] = (
        await sql<{ job_id: string; position: number }>`select job_id, position from redrives order by position`.execute(store.db)
      ).rows;
      await sql`update jobs set token = 0, trace_context = ${TRACED} where id = 'done-1'`.execute(store.db);
      await sql`update jobs set payload = '{"quantity":99}' where id = 'pending-new'`.execute(store.db);
      await sql`delete from jobs where id = 'dead-permanent'`.execute(store.db);
      await sql`insert into jobs select 'ghost', payload, state, token, attempts, max_attempts, deadline, available_at, owner, lease_until, reason, dead_since, ordering_key, lease_expiries, enqueued_at, enqueue_position, updated_at, version, queue, priority, kind, last_failure, trace_context from jobs where id = 'done-1'`.execute(
        store.db,
      );
      await sql`update redrives set note = 'OPS-EDITED' where position = ${redriven!.position}`.execute(store.db);
      await sql`insert into redrives (position, job_id, previous_token, at_ms, note) values (-1, 'done-1', 1, 5, 'OPS-9')`.execute(
        store.db,
      );
      await sql`update ledger set attempts = 2, response = 'edited' where guid = 'G-done'`.execute(store.db);
      await sql`delete from processed where msg_id = 'K2'`.execute(store.db);
      await sql`update messages set replays = 3 where id = 'c1'`.execute(store.db);
      expect(await lines(store)).toEqual([
        "PROJECTION_MISMATCH guid/G-done ledger row: response differs, attempts=2 (fold: 1)",
        `PROJECTION_MISMATCH job/done-1 jobs row: token=0 (fold: 1), trace_context=${TRACED} (fold: null)`,
        "PROJECTION_MISMATCH job/pending-new jobs row: payload differs",
        "PROJECTION_MISMATCH message/c1 messages row: replays=3 (fold: 0)",
        "PROJECTION_MISSING job/dead-permanent no jobs row for a stream of 3 events",
        'PROJECTION_MISSING message/c3 no processed row "K2"',
        "PROJECTION_ORPHAN job/ghost jobs row (state done) without events",
        "REDRIVE_AUDIT_MISMATCH job/done-1 redrives row at position -1 without a job.redriven event there",
        `REDRIVE_AUDIT_MISMATCH job/redriven-done redrives row at position ${redriven!.position}: note="OPS-EDITED" (fold: "OPS-1234")`,
      ]);
    });

    it("checks queue streams: a limit and a job's queue or priority edited behind the log, and a queues row without events", async () => {
      const { store } = await stores.open(engine);
      const clock = new ManualClock(1_000);
      const queue = new JobQueue(store, { clock });
      await queue.enqueue({ id: "m-1", payload: 1, queue: "mail", priority: 4 });
      await queue.setQueueLimit("mail", { maxLeased: 2 });
      clock.advance(5);
      await queue.setQueueLimit("mail", { maxLeased: 3 });
      await queue.setQueueLimit("sms", { maxLeased: 1 });
      await queue.claim("w", { queues: ["mail"] });
      const clean = await checkStore(store);
      expect(clean.findings).toEqual([]);
      expect(clean.checked.byStreamType).toMatchObject({ queue: { streams: 2, events: 3 } });
      await sql`update queues set max_leased = 9 where name = 'mail'`.execute(store.db);
      await sql`delete from queues where name = 'sms'`.execute(store.db);
      await sql`insert into queues (name, max_leased, updated_at, version) values ('ghost', 1, 1, 1)`.execute(store.db);
      await sql`update jobs set queue = 'other', priority = 0 where id = 'm-1'`.execute(store.db);
      expect(await lines(store)).toEqual([
        'PROJECTION_MISMATCH job/m-1 jobs row: queue="other" (fold: "mail"), priority=0 (fold: 4)',
        "PROJECTION_MISMATCH queue/mail queues row: maxLeased=9 (fold: 3)",
        "PROJECTION_MISSING queue/sms no queues row for a stream of 1 events",
        "PROJECTION_ORPHAN queue/ghost queues row without events",
      ]);
    });

    it("finds a GUID whose events were deleted while UNKNOWN (PURGED_UNRESOLVED), and a DONE row without events (PROJECTION_ORPHAN)", async () => {
      const { store } = await stores.open(engine);
      const clock = new ManualClock(1_000);
      await relayAndFiles(store, clock);
      // A buggy purge: the UNKNOWN entry's events deleted with SQL, its row left (they are not the newest events).
      await sql`delete from events where stream_type = 'guid' and stream_id in ('G-unknown', 'G-done')`.execute(store.db);
      expect(await lines(store)).toEqual([
        "PROJECTION_ORPHAN guid/G-done ledger row (DONE) without events",
        "PURGED_UNRESOLVED guid/G-unknown ledger row says UNKNOWN (E901) but its events are gone; only DONE entries may be purged",
      ]);
    });

    it("finds a purge audit naming a GUID whose old stream is still there (PURGE_INCOMPLETE)", async () => {
      const { store } = await stores.open(engine);
      const clock = new ManualClock(1_000);
      await relayAndFiles(store, clock);
      await plantEvent(store, {
        streamType: "ledger-audit",
        streamId: "purges",
        version: 2,
        type: "ledger.purged",
        data: { guids: ["G-failed", "G-nowhere"], retentionMs: 5_000, resendWindowMs: 1_000, at: 99_000 },
      });
      expect(await lines(store)).toEqual([
        "PURGE_INCOMPLETE guid/G-failed purged by ledger-audit v2 (position " +
          String(Number((await sql<{ p: number }>`select max(position) as p from events`.execute(store.db)).rows[0]?.p)) +
          ") but 3 of its events from before the purge remain",
      ]);
    });

    it("finds events no fold accepts, and positions that go backwards within a stream", async () => {
      const { store } = await stores.open(engine);
      const queue = new JobQueue(store, { clock: new ManualClock(1_000) });
      await queue.enqueue({ id: "odd", payload: {} });
      await queue.enqueue({ id: "back", payload: {} });
      await plantEvent(store, { streamType: "job", streamId: "odd", version: 2, type: "job.teleported", data: { at: 1 } });
      await plantEvent(store, {
        streamType: "job",
        streamId: "orphan-claim",
        version: 1,
        type: "job.claimed",
        data: { token: 1, owner: "w", leaseUntil: 5, at: 1 },
      });
      await plantEvent(store, {
        streamType: "job",
        streamId: "back",
        version: 2,
        type: "job.leaseExtended",
        data: { token: 0, leaseUntil: 5, at: 1 },
        position: -5,
      });
      expect(await lines(store)).toEqual([
        'EVENT_INVALID job/odd v2 has the unknown type "job.teleported"',
        "EVENT_INVALID job/orphan-claim v1 job.claimed: job.claimed before job.enqueued",
        "POSITION_BACKWARDS job/back v2 at position -5 is below v1 at position 2",
        "PROJECTION_MISMATCH job/back jobs row: leaseUntil=null (fold: 5), updatedAt=1000 (fold: 1), version=1 (fold: 2)",
      ]);
    });
  });
}

it("refuses a batch size out of range", async () => {
  await expect(checkStore({} as VerqStore, { batchSize: 0 })).rejects.toThrow(/batchSize/);
  await expect(checkStore({} as VerqStore, { batchSize: 10_001 })).rejects.toThrow(/batchSize/);
});
