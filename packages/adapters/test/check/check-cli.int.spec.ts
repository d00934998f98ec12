import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { ManualClock, classifyCoreCall } from "@verq/core";
import { FileLedger, GuidLedger, type VerqStore } from "@verq/store";
import { ENGINES, createTestDatabase, engineAvailable, rawSql, runVerq, tempDir, type TestDatabase } from "@verq/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { verq } from "../support/run-cli.ts";

let server: Server;
let target: string;
let reply = '{"ok":true}';

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(reply));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  target = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/**
 * Jobs through the CLI (done, dead, redriven and done again, a retry), relay entries in every
 * state through the ledger (one DONE purged), file-queue messages with a duplicate.
 */
async function work(db: string, store: VerqStore): Promise<void> {
  for (const id of ["a", "b", "c"])
    expect((await verq("jobs", "enqueue", "--db", db, "--id", id, "--payload", '{"q":1}', "--max-attempts", "1")).code).toBe(0);
  expect((await verq("jobs", "work", "--db", db, "--target", target, "--once", "--owner", "w1")).code).toBe(0);
  const refused = createServer((req, res) => req.resume().on("end", () => res.writeHead(422).end("{}")));
  await new Promise<void>((resolve) => refused.listen(0, "127.0.0.1", resolve));
  const permanentTarget = `http://127.0.0.1:${(refused.address() as AddressInfo).port}/`;
  expect((await verq("jobs", "work", "--db", db, "--target", permanentTarget, "--once", "--owner", "w2")).code).toBe(0);
  refused.close();
  reply = '{"ok":true}';
  const dead = await verq("jobs", "dead", "--db", db, "--json");
  const deadId = (JSON.parse(dead.out) as { id: string }[])[0]?.id ?? "";
  expect((await verq("jobs", "redrive", deadId, "--db", db, "--note", "OPS-7")).code).toBe(0);
  expect((await verq("jobs", "work", "--db", db, "--target", target, "--exit-when-idle", "--owner", "w3")).code).toBe(0);

  const clock = new ManualClock(1_000);
  const ledger = new GuidLedger(store, { clock });
  for (const [i, guid] of ["G-purged", "G-done", "G-unknown", "G-failed", "G-received"].entries()) {
    await ledger.receive({ guid, request: JSON.stringify({ guid, amount: i }), fingerprint: `f${i}`, maxAttempts: 3 });
    if (guid === "G-received") continue;
    await ledger.send(guid);
    const result =
      guid === "G-unknown"
        ? ({ kind: "no-answer", reason: "TimeoutError" } as const)
        : guid === "G-failed"
          ? ({ kind: "not-sent", reason: "ECONNREFUSED" } as const)
          : ({ kind: "answered", status: 200, body: JSON.stringify({ guid, code: "0000" }) } as const);
    await ledger.record(guid, 1, classifyCoreCall(guid, result));
    if (guid === "G-purged") clock.advance(10_000);
  }
  expect((await ledger.purge({ retentionMs: 5_000, resendWindowMs: 1_000 })).purged).toBe(1);
  const files = new FileLedger(store, { clock });
  for (const [claimId, file, key] of [
    ["c1", "a.json", "K1"],
    ["c2", "b.json", "K1"],
  ] as const)
    await files.settle({
      claimId,
      owner: "1@host",
      file,
      recovered: false,
      errorCopyExists: false,
      verdict: { kind: "valid", key, group: "O-1", sequence: 1, amount: 10, message: JSON.stringify({ msg_id: key }), file },
    });
}

const plant = (database: TestDatabase, streamId: string, version: number, type: string, data: object) =>
  rawSql(database, "insert into events (stream_type, stream_id, version, type, data, at_ms) values ('job', ?, ?, ?, ?, ?)", [
    streamId,
    version,
    type,
    JSON.stringify(data),
    (data as { at: number }).at,
  ]);

/**
 * The five faults of the issue, each planted with SQL the way a buggy writer would leave it: a
 * skipped version, a reset token and a second accepted finish (the projection rebuilt to their
 * fold, as the buggy writer would have projected them), a projection row edited behind the log,
 * and an UNKNOWN entry's events deleted by a purge that ignored its state.
 */
async function plantFaults(database: TestDatabase, store: VerqStore): Promise<readonly string[]> {
  await plant(database, "gap", 1, "job.enqueued", {
    id: "gap",
    payload: {},
    maxAttempts: 5,
    deadline: 9e12,
    availableAt: 0,
    orderingKey: null,
    at: 5,
  });
  await plant(database, "gap", 3, "job.claimed", { token: 1, owner: "w9", leaseUntil: 9e12, at: 6 });
  await plant(database, "reset", 1, "job.enqueued", {
    id: "reset",
    payload: {},
    maxAttempts: 5,
    deadline: 9e12,
    availableAt: 0,
    orderingKey: null,
    at: 5,
  });
  await plant(database, "reset", 2, "job.claimed", { token: 1, owner: "w9", leaseUntil: 10, at: 6 });
  await plant(database, "reset", 3, "job.retryScheduled", { token: 1, availableAt: 20, at: 7 });
  await plant(database, "reset", 4, "job.claimed", { token: 1, owner: "w8", leaseUntil: 30, at: 21 });
  await plant(database, "twice", 1, "job.enqueued", {
    id: "twice",
    payload: {},
    maxAttempts: 5,
    deadline: 9e12,
    availableAt: 0,
    orderingKey: null,
    at: 5,
  });
  await plant(database, "twice", 2, "job.claimed", { token: 1, owner: "w9", leaseUntil: 10, at: 6 });
  await plant(database, "twice", 3, "job.completed", { token: 1, at: 7 });
  await plant(database, "twice", 4, "job.completed", { token: 1, at: 8 });
  await store.rebuildProjections();
  await rawSql(database, "update jobs set token = 7 where id = 'a'");
  await rawSql(database, "delete from events where stream_type = 'guid' and stream_id = 'G-unknown'");
  return [
    "DOUBLE_FINISH job/twice v4 job.completed token 1, already finished at v3",
    "PROJECTION_MISMATCH job/a jobs row: token=7 (fold: 1)",
    "PURGED_UNRESOLVED guid/G-unknown ledger row says UNKNOWN (E901) but its events are gone; only DONE entries may be purged",
    "TOKEN_RESET job/reset v4 job.claimed token 1 after token 1",
    "VERSION_GAP job/gap v3 follows v1",
  ];
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] verq check`, () => {
    let database: TestDatabase;
    let store: VerqStore;
    beforeEach(async () => {
      database = await createTestDatabase(engine, "store.sqlite");
      store = await database.open();
      reply = '{"ok":true}';
    });
    afterEach(async () => {
      await store.close();
      await database.dispose();
    });

    it("exits 0 with one summary line on a store after jobs, relay and file-queue work; --json says ok", async () => {
      await work(database.db, store);
      const events = Number((await rawSql(database, "select count(*) as n from events"))[0]?.n);
      const clean = await verq("check", "--db", database.db);
      expect(clean).toEqual({
        code: 0,
        out: expect.stringMatching(/^ok: \d+ streams, \d+ events checked\n$/) as string,
        err: "",
      });
      expect(clean.out).toContain(`, ${events} events checked`);
      const json = await verq("check", "--db", database.db, "--json", "--batch-size", "3");
      expect(json.code).toBe(0);
      expect(JSON.parse(json.out)).toMatchObject({
        ok: true,
        findings: [],
        checked: { events, byStreamType: { guid: { streams: 4 }, message: { streams: 2 } } },
      });
    });

    it("exits 1 with one line per planted fault (CODE stream detail), and lists them in --json", async () => {
      await work(database.db, store);
      const expected = await plantFaults(database, store);
      const lines = [...expected];
      const result = await verq("check", "--db", database.db);
      expect(result.code).toBe(1);
      expect(result.out.trimEnd().split("\n").sort()).toEqual(lines);
      expect(result.err).toMatch(/^verq: check found 5 problems in \d+ streams, \d+ events\n?$/);
      const json = JSON.parse((await verq("check", "--db", database.db, "--json", "--batch-size", "1")).out) as {
        ok: boolean;
        findings: { code: string; stream: string; detail: string }[];
      };
      expect(json.ok).toBe(false);
      expect(json.findings.map((f) => `${f.code} ${f.stream} ${f.detail}`).sort()).toEqual(lines);
    });

    it("as a child process: exit 1 and the finding line on stdout", async () => {
      await plant(database, "x", 2, "job.enqueued", {
        id: "x",
        payload: 1,
        maxAttempts: 1,
        deadline: 9e12,
        availableAt: 0,
        orderingKey: null,
        at: 1,
      });
      const run = await runVerq(["check", "--db", database.db]);
      expect(run.status).toBe(1);
      expect(run.stdout.split("\n").filter(Boolean).sort()).toEqual([
        "PROJECTION_MISSING job/x no jobs row for a stream of 1 events",
        "VERSION_GAP job/x the stream starts at v2, not v1",
      ]);
    });
  });
}

describe("verq check: options and stores it cannot use", () => {
  it("exits 2 on a bad --batch-size before opening anything, and 4 on a SQLite file that does not exist (not created)", async () => {
    const dir = tempDir("verq-check-");
    try {
      const file = join(dir.path, "missing.sqlite");
      const bad = await verq("check", "--db", file, "--batch-size", "0");
      expect(bad.code).toBe(2);
      expect(bad.err).toContain("verq: VERQ_INVALID_ARGUMENT: --batch-size must be a whole number from 1 to 10000");
      const missing = await verq("check", "--db", file, "--json");
      expect(missing.code).toBe(4);
      expect(JSON.parse(missing.out)).toMatchObject({ error: { code: "VERQ_FILE_NOT_FOUND" } });
      expect(existsSync(file)).toBe(false);
      expect((await verq("check")).code).toBe(2);
    } finally {
      dir.remove();
    }
  });

  it("exits 1 with VERQ_STORE_UNREACHABLE on a PostgreSQL server that cannot be used, naming it without the password", async () => {
    const result = await verq("check", "--db", "postgres://verq:s3cret@127.0.0.1:1/verq");
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/^verq: VERQ_STORE_UNREACHABLE: cannot use PostgreSQL at 127\.0\.0\.1:1\/verq/);
    expect(result.err).not.toContain("s3cret");
  });
});
