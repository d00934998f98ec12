import * as core from "@verq/core";
import { ManualClock, STREAM_TYPES, classifyCoreCall } from "@verq/core";
import { FileLedger, GuidLedger, JobQueue, openStore, type VerqStore } from "@verq/store";
import { ENGINES, createTestDatabase, engineAvailable, rawSql, type TestDatabase } from "@verq/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runInProcess as verq } from "./support/cli-sandbox.ts";

/*
 * One list of stream types, core's STREAM_TYPES, and every place that takes a stream type knows
 * each one: a stream type the store writes that is missing from the list, or one that `verq
 * events --type` refuses or `verq check` cannot read, fails here.
 */

describe("core's STREAM_TYPES", () => {
  it("holds every stream type constant core exports (each *_STREAM), once", () => {
    const constants = Object.entries(core)
      .filter(([name]) => name.endsWith("_STREAM"))
      .map(([, value]) => value as string);
    expect(constants.length).toBeGreaterThan(0);
    expect([...STREAM_TYPES].sort()).toEqual([...new Set(constants)].sort());
    expect(new Set(STREAM_TYPES).size).toBe(STREAM_TYPES.length);
  });
});

/**
 * Writes at least one stream of every type through the store's own services and the CLI: a job
 * done and pruned (job, job-retention), GUIDs, one purged (guid, ledger-audit), a file-queue
 * message (message), a schedule, a queue limit, and a bulk redrive's lock (operator).
 */
async function everyStream(db: string, store: VerqStore): Promise<void> {
  const clock = new ManualClock(1_000_000);
  const queue = new JobQueue(store, { clock });
  await queue.enqueue({ id: "j-1", payload: {}, maxAttempts: 1 });
  const job = await queue.claim("w1");
  if (job === null) throw new Error("nothing to claim");
  expect(await queue.finish(job.id, job.token, "ok")).toBe(true);
  await queue.enqueue({ id: "j-2", payload: {}, maxAttempts: 1 });
  clock.advance(60_000);
  expect((await queue.prune({ doneOlderThan: 1_000 })).pruned.done).toBe(1);

  const ledger = new GuidLedger(store, { clock });
  for (const guid of ["G-purged", "G-kept"]) {
    await ledger.receive({ guid, request: JSON.stringify({ guid }), fingerprint: guid, maxAttempts: 3 });
    await ledger.send(guid);
    const answer = { kind: "answered", status: 200, body: JSON.stringify({ guid, code: "0000" }) } as const;
    await ledger.record(guid, 1, classifyCoreCall(guid, answer));
    if (guid === "G-purged") clock.advance(10_000);
  }
  expect((await ledger.purge({ retentionMs: 5_000, resendWindowMs: 1_000 })).purged).toBe(1);

  await new FileLedger(store, { clock }).settle({
    claimId: "c1",
    owner: "1@host",
    file: "a.json",
    recovered: false,
    errorCopyExists: false,
    verdict: { kind: "valid", key: "K1", group: "O-1", sequence: 1, amount: 10, message: '{"msg_id":"K1"}', file: "a.json" },
  });

  expect((await verq(["schedules", "add", "nightly", "--db", db, "--cron", "@daily"])).code).toBe(0);
  expect((await verq(["queues", "limit", "slow", "--db", db, "--max-leased", "2"])).code).toBe(0);
  expect((await verq(["jobs", "redrive", "--all", "--db", db, "--note", "OPS-1", "--rate", "50/s"])).code).toBe(0);
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] every stream type the store writes is known`, () => {
    let database: TestDatabase;
    let store: VerqStore;
    beforeEach(async () => {
      database = await createTestDatabase(engine, "streams.sqlite");
      store = await openStore(database.db);
    });
    afterEach(async () => {
      await store.close();
      await database.dispose();
    });

    it("the events table holds exactly core's STREAM_TYPES; verq events --type takes each, and verq check reads each without a finding", async () => {
      await everyStream(database.db, store);
      const rows = await rawSql(database, "select stream_type, count(*) as n from events group by stream_type");
      const written = new Map(rows.map((row) => [String(row.stream_type), Number(row.n)]));
      expect([...written.keys()].sort()).toEqual([...STREAM_TYPES].sort());

      for (const type of STREAM_TYPES) {
        const run = await verq(["events", "--db", database.db, "--type", type]);
        expect(run.err, type).toBe("");
        expect(run.code, type).toBe(0);
        const lines = run.out.trimEnd().split("\n");
        expect(lines.map((line) => (JSON.parse(line) as { streamType: string }).streamType)).toEqual(lines.map(() => type));
        expect(lines.length, type).toBe(written.get(type));
      }
      const all = await verq(["events", "--db", database.db, "--type", STREAM_TYPES.join(",")]);
      expect(all.code).toBe(0);
      expect(all.out.trimEnd().split("\n")).toHaveLength([...written.values()].reduce((a, b) => a + b, 0));

      const check = await verq(["check", "--db", database.db, "--json"]);
      expect(check.code, check.out + check.err).toBe(0);
      const report = JSON.parse(check.out) as { ok: boolean; checked: { byStreamType: Record<string, { events: number }> } };
      expect(report.ok).toBe(true);
      expect(Object.keys(report.checked.byStreamType).sort()).toEqual([...STREAM_TYPES].sort());
      for (const type of STREAM_TYPES) expect(report.checked.byStreamType[type]?.events, type).toBe(written.get(type));
    });
  });
}

describe("verq events --type", () => {
  it("refuses a type that is not a stream type, naming every one of core's STREAM_TYPES (exit 2)", async () => {
    const run = await verq(["events", "--db", "unused.sqlite", "--type", "jobs"]);
    expect(run.code).toBe(2);
    expect(run.err).toContain(`--type must be ${STREAM_TYPES.join(", ")}; got "jobs"`);
  });
});
