import { registerVerqMetrics } from "@verq/adapters/metrics";
import * as core from "@verq/core";
import {
  DEAD_REASONS,
  FINISH_OUTCOMES,
  GUID_STATES,
  JOB_STATES,
  ManualClock,
  STREAM_MACHINES,
  STREAM_TYPES,
  VERQ_MACHINES,
  VERQ_MACHINE_NAMES,
  classifyCoreCall,
} from "@verq/core";
import { FileLedger, GuidLedger, JobQueue, openStore, type VerqStore } from "@verq/store";
import { Registry } from "prom-client";
import { ENGINES, createTestDatabase, engineAvailable, rawSql, tempDir, type TestDatabase } from "@verq/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runInProcess as verq } from "./support/cli-sandbox.ts";

/*
 * One list of stream types, core's STREAM_TYPES, and every place that takes a stream type knows
 * each one: a stream type the store writes that is missing from the list, or one that `verq
 * events --type` refuses, `verq viz` does not export a machine for, or `verq check` cannot read,
 * fails here; so does a metric or a CLI choice whose values differ from core's lists.
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

  it("each names the machine that decides it, or the machine whose commands its audit records, and every machine decides a stream", () => {
    const named = STREAM_TYPES.map((type) => {
      const entry: { machine: string } | { auditOf: string } = STREAM_MACHINES[type];
      return "machine" in entry ? entry.machine : entry.auditOf;
    });
    for (const [i, machine] of named.entries()) expect(Object.keys(VERQ_MACHINES), STREAM_TYPES[i]).toContain(machine);
    expect([...VERQ_MACHINE_NAMES].sort()).toEqual(Object.keys(VERQ_MACHINES).sort());
    expect(new Set(named)).toEqual(new Set(VERQ_MACHINE_NAMES));
  });
});

describe("verq viz", () => {
  it("--json lists the files of every machine that decides a stream type", async () => {
    const out = tempDir("verq-streams-viz-");
    try {
      const run = await verq(["viz", "--out", out.path, "--json"]);
      expect(run.code, run.err).toBe(0);
      const files = (JSON.parse(run.out) as { files: { machine: string }[] }).files;
      for (const type of STREAM_TYPES) {
        const entry: { machine: string } | { auditOf: string } = STREAM_MACHINES[type];
        expect(new Set(files.map((f) => f.machine)), type).toContain("machine" in entry ? entry.machine : entry.auditOf);
      }
    } finally {
      out.remove();
    }
  });
});

/** `a, b, c or d`: how a help text lists choices. */
const spoken = (choices: readonly string[]) => `${choices.slice(0, -1).join(", ")} or ${choices.at(-1)}`;

describe("the CLI's choices are core's lists", () => {
  it("jobs dead --reason and jobs redrive --all --reason take DEAD_REASONS, and their help lists them", async () => {
    for (const args of [
      ["jobs", "dead", "--db", "unused.sqlite", "--reason", "old"],
      ["jobs", "redrive", "--all", "--db", "unused.sqlite", "--note", "OPS-1", "--rate", "5/s", "--reason", "old"],
    ]) {
      const run = await verq(args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.err).toContain(`--reason must be ${DEAD_REASONS.join(", ")}; got "old"`);
    }
    for (const command of ["dead", "redrive"]) {
      const help = await verq(["jobs", command, "--help"]);
      expect(help.out.replace(/\s+/g, " "), command).toContain(spoken(DEAD_REASONS));
    }
  });

  it("jobs finish --outcome takes FINISH_OUTCOMES, and its help lists them", async () => {
    const run = await verq(["jobs", "finish", "j-1", "--db", "unused.sqlite", "--token", "1", "--outcome", "done"]);
    expect(run.code).toBe(2);
    expect(run.err).toContain(`--outcome must be ${FINISH_OUTCOMES.join(", ")}; got "done"`);
    const help = await verq(["jobs", "finish", "--help"]);
    expect(help.out.replace(/\s+/g, " ")).toContain(spoken(FINISH_OUTCOMES));
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

    it("the metrics label every job state, dead reason and GUID state of core's lists, and no other", async () => {
      await everyStream(database.db, store);
      const registry = new Registry();
      registerVerqMetrics(registry, { store });
      const metrics = await registry.getMetricsAsJSON();
      // Each distinct value once: verq_jobs has one series per state for each queue and kind.
      const labels = (name: string, label: string) => [
        ...new Set(
          metrics
            .find((m) => m.name === name)
            ?.values.map((v) => String((v.labels as Record<string, unknown>)[label]))
            .sort(),
        ),
      ];
      expect(labels("verq_jobs", "state")).toEqual([...JOB_STATES].sort());
      expect(labels("verq_jobs_dead", "reason")).toEqual([...DEAD_REASONS].sort());
      expect(labels("verq_ledger_entries", "state")).toEqual([...GUID_STATES].sort());
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
