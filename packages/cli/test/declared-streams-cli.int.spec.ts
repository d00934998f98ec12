import { STREAM_TYPES } from "@verq/core";
import { JobQueue, declareStream } from "@verq/store";
import { ENGINES, createTestDatabase, engineAvailable, rawSql, type TestDatabase, type VerqRun } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";
import { ticketStream } from "../../core/test/ticket-stream.ts";
import { runInProcess, type CliResult } from "./support/cli-sandbox.ts";
import { TICKETS, TICKETS_V2, verqWithTsx } from "./support/declared-streams.ts";

/*
 * `verq events --streams` and `verq check --streams` on a store that a service wrote through
 * `declareStream`, on both engines: the declared stream type is one more `--type`, its events
 * are printed upcast to the module's schemas, and the check compares its `stream_states` rows
 * with the fold of its events. Most cases run in this process; one of each command runs the
 * bundled bin as a child process, which imports the module as an installed `verq` does.
 */

/** `verq args` in this process, as a child process's run reads. */
const verq = async (args: readonly string[]): Promise<VerqRun> => {
  const run: CliResult = await runInProcess(args);
  return { status: run.code, signal: null, stdout: run.out, stderr: run.err };
};

const T = 1_764_640_000_000;
const clock = { now: () => T };

/** What `verq events` prints of one event, parsed. */
interface EventLine {
  readonly position: number;
  readonly type: string;
  readonly streamType: string;
  readonly streamId: string;
  readonly version: number;
  readonly schemaVersion?: number;
  readonly at: number;
  readonly data: Record<string, unknown>;
}

const lines = (run: VerqRun): EventLine[] =>
  run.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as EventLine);

let databases: TestDatabase[] = [];
afterEach(async () => {
  for (const database of databases) await database.dispose();
  databases = [];
});

/** A store with tickets t-1 (opened, taken by ann) and t-2 (opened), written through `declareStream`, and a job. */
async function ticketStore(engine: (typeof ENGINES)[number]): Promise<TestDatabase> {
  const database = await createTestDatabase(engine);
  databases.push(database);
  const store = await database.open();
  try {
    const tickets = declareStream(store, ticketStream, { clock });
    await tickets.handle("t-1", [
      { type: "open", title: "printer" },
      { type: "take", holder: "ann" },
    ]);
    await tickets.handle("t-2", { type: "open", title: "desk" });
    await new JobQueue(store, { clock }).enqueue({ id: "j-1", payload: { n: 1 } });
  } finally {
    await store.close();
  }
  return database;
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] verq events --streams`, () => {
    it("--type takes the declared stream type and prints its events, each line with its schema version", async () => {
      const { db } = await ticketStore(engine);
      const run = await verq(["events", "--db", db, "--streams", TICKETS, "--type", "ticket"]);
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      expect(lines(run).map(({ position: _, ...line }) => line)).toEqual([
        {
          type: "ticket.opened",
          streamType: "ticket",
          streamId: "t-1",
          version: 1,
          schemaVersion: 1,
          at: T,
          data: { title: "printer", at: T },
        },
        {
          type: "ticket.taken",
          streamType: "ticket",
          streamId: "t-1",
          version: 2,
          schemaVersion: 1,
          at: T,
          data: { holder: "ann", token: 1, at: T },
        },
        {
          type: "ticket.opened",
          streamType: "ticket",
          streamId: "t-2",
          version: 1,
          schemaVersion: 1,
          at: T,
          data: { title: "desk", at: T },
        },
      ]);
    });

    it("prints the events of a version 1 store upcast to the module's version 2, and verq's own as stored", async () => {
      const { db } = await ticketStore(engine);
      // The bundled bin, as a child process, importing the module.
      const run = await verqWithTsx(["events", "--db", db, "--streams", TICKETS_V2, "--type", "ticket,job"]);
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      const printed = lines(run);
      expect(printed.map((e) => [e.streamType, e.type, e.schemaVersion, e.data.urgency])).toEqual([
        ["ticket", "ticket.opened", 2, "normal"],
        ["ticket", "ticket.taken", 1, undefined],
        ["ticket", "ticket.opened", 2, "normal"],
        ["job", "job.enqueued", 1, undefined],
      ]);
      expect(printed[0]?.data).toEqual({ title: "printer", at: T, urgency: "normal" });
      // The log itself is not rewritten: without the module the event is as it was stored.
      const stored = lines(await verq(["events", "--db", db, "--streams", TICKETS, "--type", "ticket"]));
      expect(stored[0]?.data).toEqual({ title: "printer", at: T });
    });

    it("without --streams nothing changes: no schemaVersion in the lines, and the declared type is refused with verq's list", async () => {
      const { db } = await ticketStore(engine);
      const all = await verq(["events", "--db", db]);
      expect(all.status).toBe(0);
      expect(lines(all).map((e) => [e.streamType, e.type])).toEqual([
        ["ticket", "ticket.opened"],
        ["ticket", "ticket.taken"],
        ["ticket", "ticket.opened"],
        ["job", "job.enqueued"],
      ]);
      expect(lines(all).every((e) => !("schemaVersion" in e))).toBe(true);
      const refused = await verq(["events", "--db", db, "--type", "ticket"]);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain(`--type must be ${STREAM_TYPES.join(", ")}; got "ticket"`);
      const listed = await verq(["events", "--db", db, "--streams", TICKETS, "--type", "tickets"]);
      expect(listed.status).toBe(2);
      expect(listed.stderr).toContain(`--type must be ${[...STREAM_TYPES, "ticket"].join(", ")}; got "tickets"`);
      expect(listed.stdout).toBe("");
    });
  });

  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] verq check --streams`, () => {
    it("is clean on a store written through declareStream, and finds a damaged stream_states row (exit 1)", async () => {
      const database = await ticketStore(engine);
      const { db } = database;
      const clean = await verq(["check", "--db", db, "--streams", TICKETS]);
      expect(clean).toMatchObject({ status: 0, stdout: "ok: 3 streams, 4 events checked\n", stderr: "" });

      await rawSql(database, "update stream_states set token = 5 where stream_type = 'ticket' and stream_id = 't-1'");
      // The bundled bin, as a child process, importing the module.
      const damaged = await verqWithTsx(["check", "--db", db, "--streams", TICKETS]);
      expect(damaged.status).toBe(1);
      expect(damaged.stdout).toBe("PROJECTION_MISMATCH ticket/t-1 stream_states row: token=5 (fold: 1)\n");
      expect(damaged.stderr).toBe("verq: check found 1 problem in 3 streams, 4 events\n");
      // Without the module the check knows only the log's order, as before.
      expect((await verq(["check", "--db", db])).status).toBe(0);
      // VERQ_STREAMS is --streams when the option is not given.
      const fromEnv = await verqWithTsx(["check", "--db", db], { VERQ_STREAMS: TICKETS });
      expect([fromEnv.status, fromEnv.stdout]).toEqual([1, damaged.stdout]);
    });

    it("reports a missing row and an orphan row by type/id, in --json too", async () => {
      const database = await ticketStore(engine);
      await rawSql(database, "delete from stream_states where stream_type = 'ticket' and stream_id = 't-2'");
      await rawSql(
        database,
        `insert into stream_states (stream_type, stream_id, state, version, token, value, updated_at)
         values ('ticket', 't-9', 'open', 1, 0, '{}', ${T})`,
      );
      const run = await verq(["check", "--db", database.db, "--streams", TICKETS, "--json"]);
      expect(run.status).toBe(1);
      const report = JSON.parse(run.stdout) as { ok: boolean; findings: unknown[]; checked: { byStreamType: object } };
      expect(report.ok).toBe(false);
      expect(report.findings).toEqual([
        { code: "PROJECTION_MISSING", stream: "ticket/t-2", detail: "no stream_states row for a stream of 1 events" },
        { code: "PROJECTION_ORPHAN", stream: "ticket/t-9", detail: "stream_states row without events" },
      ]);
      expect(report.checked.byStreamType).toMatchObject({ ticket: { streams: 2, events: 3 } });
    });

    it("folds a version 1 store through the module's upcasters: clean", async () => {
      const { db } = await ticketStore(engine);
      const run = await verq(["check", "--db", db, "--streams", TICKETS_V2]);
      expect(run).toMatchObject({ status: 0, stdout: "ok: 3 streams, 4 events checked\n", stderr: "" });
    });
  });
}
