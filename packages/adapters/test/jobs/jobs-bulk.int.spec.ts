import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BULK_REDRIVE_LOCK } from "@verq/core";
import { JobQueue, OperatorLocks, type VerqStore } from "@verq/store";
import { ENGINES, createTestDatabase, engineAvailable, tempDir, type TestDatabase } from "@verq/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "@verq/cli";
import { leftBehind } from "../support/left-behind.ts";
import { finalState, makeDeadJobs } from "./support/dead-jobs.ts";

async function verq(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runCli(args, { out: (t) => (out += t.endsWith("\n") ? t : `${t}\n`), err: (t) => (err += `${t}\n`) });
  return { code, out, err };
}
const json = (text: string) => JSON.parse(text) as Record<string, unknown>;
const line = (id: string, payload: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ id, payload, ...extra });

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] bulk work from the command line`, () => {
    let database: TestDatabase;
    let dir: { path: string; remove: () => void };
    let store: VerqStore | null = null;
    beforeEach(async () => {
      database = await createTestDatabase(engine, "bulk.sqlite");
      dir = tempDir("verq-bulk-");
    });
    afterEach(async () => {
      await store?.close();
      store = null;
      await database.dispose();
      dir.remove();
    });
    const file = (name: string, lines: readonly string[]) => {
      const path = join(dir.path, name);
      writeFileSync(path, `${lines.join("\n")}\n`);
      return path;
    };
    const open = async () => (store ??= await database.open());
    const ids = async () => (await (await open()).db.selectFrom("jobs").select("id").orderBy("id").execute()).map((r) => r.id);

    describe("jobs enqueue --from", () => {
      it("one job a line in chunks; the same file again is a no-op; a line's fields are those of enqueue's options", async () => {
        const path = file("jobs.ndjson", [
          line("a", { n: 1 }),
          line("b", { n: 2 }, { maxAttempts: 2, deadline: "1h" }),
          "",
          line("c", [1, 2], { orderingKey: "acct-7" }),
          line("d", null),
          line("e", "text"),
        ]);
        const first = await verq("jobs", "enqueue", "--db", database.db, "--from", path, "--chunk", "2", "--json");
        expect([first.code, json(first.out)]).toEqual([0, { lines: 5, chunks: 3, created: 5, existing: 0 }]);
        const again = await verq("jobs", "enqueue", "--db", database.db, "--from", path);
        expect(again.code).toBe(0);
        expect(again.out).toContain("enqueued 0 new, 5 already there with the same payload (no-op), from 5 lines in 1 chunks");
        const queue = new JobQueue(await open());
        expect(await queue.get("b")).toMatchObject({ maxAttempts: 2, payload: { n: 2 } });
        expect(await queue.get("c")).toMatchObject({ orderingKey: "acct-7", payload: [1, 2] });
      });

      it("a malformed line stops the run with its line number and code (exit 2): its chunk is not written, the chunks before it are", async () => {
        const cases: [string, string, string][] = [
          ["not json", "VERQ_INVALID_ARGUMENT", "not valid JSON"],
          [line("", {}), "VERQ_INVALID_ID", '"id" must be'],
          [JSON.stringify({ id: "x" }), "VERQ_INVALID_PAYLOAD", '"payload" is missing'],
          [line("x", {}, { maxAttempts: 0 }), "VERQ_INVALID_ARGUMENT", "maxAttempts must be a whole number from 1 to"],
          [line("x", {}, { deadline: "soon" }), "VERQ_INVALID_ARGUMENT", '"deadline"'],
          [line("x", {}, { urgency: 1 }), "VERQ_INVALID_ARGUMENT", 'unknown field "urgency"'],
          [line("x", {}, { priority: 1001 }), "VERQ_INVALID_ARGUMENT", "a priority must be"],
          [line("x", {}, { queue: "" }), "VERQ_INVALID_ARGUMENT", "a queue name must be"],
          ["[1,2]", "VERQ_INVALID_ARGUMENT", "JSON object"],
        ];
        for (const [i, [bad, code, message]] of cases.entries()) {
          const path = file(`bad-${i}.ndjson`, [
            line(`p${i}-1`, {}),
            line(`p${i}-2`, {}),
            line(`p${i}-3`, {}),
            bad,
            line(`p${i}-5`, {}),
          ]);
          const run = await verq("jobs", "enqueue", "--db", database.db, "--from", path, "--chunk", "2");
          expect(run.code).toBe(2);
          expect(run.err).toContain(`verq: line 4: ${code}: `);
          expect(run.err).toContain(message);
          expect(run.err).toContain(
            "2 lines in 1 chunks were written before it (lines 1-2); nothing of the chunk holding line 4",
          );
          // Line 3 shares line 4's chunk: not written. Line 5 comes after the stop.
          expect((await ids()).filter((id) => id.startsWith(`p${i}-`))).toEqual([`p${i}-1`, `p${i}-2`]);
        }
      });

      it("a payload conflict is a rule's refusal (exit 3) named by its line; nothing of its chunk is written", async () => {
        await verq("jobs", "enqueue", "--db", database.db, "--id", "taken", "--payload", '{"n":1}');
        const path = file("conflict.ndjson", [line("q1", {}), line("q2", {}), line("q3", {}), line("taken", { n: 2 })]);
        const run = await verq("jobs", "enqueue", "--db", database.db, "--from", path, "--chunk", "2", "--json");
        expect(run.code).toBe(3);
        expect(json(run.out)).toMatchObject({
          error: { code: "VERQ_ENQUEUE_CONFLICT", line: 4 },
          written: { lines: 2, chunks: 1, created: 2 },
        });
        expect(await ids()).toEqual(["q1", "q2", "taken"]);
        // Two lines of one chunk with one id and two payloads: the later line is the one refused.
        const inChunk = file("dup.ndjson", [line("r1", { n: 1 }), line("r2", {}), line("r1", { n: 2 })]);
        const dup = await verq("jobs", "enqueue", "--db", database.db, "--from", inChunk);
        expect(dup.code).toBe(3);
        expect(dup.err).toContain("verq: line 3: VERQ_ENQUEUE_CONFLICT:");
        expect((await ids()).filter((id) => id.startsWith("r"))).toEqual([]);
      });

      it("bad options are usage errors before the database is opened; a missing file is exit 4", async () => {
        const path = file("ok.ndjson", [line("a", {})]);
        const runs = [
          await verq("jobs", "enqueue", "--db", database.db, "--from", path, "--chunk", "0"),
          await verq("jobs", "enqueue", "--db", database.db, "--from", path, "--chunk", "1001"),
          await verq("jobs", "enqueue", "--db", database.db, "--from", path, "--id", "a"),
          await verq("jobs", "enqueue", "--db", database.db),
        ];
        expect(runs.map((r) => r.code)).toEqual([2, 2, 2, 2]);
        const missing = await verq("jobs", "enqueue", "--db", database.db, "--from", join(dir.path, "nope.ndjson"));
        expect([missing.code, missing.err]).toEqual([4, expect.stringContaining("VERQ_FILE_NOT_FOUND")]);
        expect(await leftBehind(database)).toEqual([]);
      });
    });

    describe("jobs redrive --all", () => {
      it("O1: redrives every dead job once, paced, each with its audit row, and prints the summary", async () => {
        const dead = await makeDeadJobs(await open(), 30);
        const started = Date.now();
        const run = await verq("jobs", "redrive", "--all", "--db", database.db, "--note", "OPS-7", "--rate", "50/s");
        const elapsed = Date.now() - started;
        expect(run.code).toBe(0);
        expect(run.out).toMatch(
          /^redriven 30, held back by the rate limit 0, failed 0 in \d+\.\d s; skipped 0 no longer dead; 30 matched\n$/,
        );
        // 30 at 50/s: the 30th starts at least 29 intervals of 20 ms after the first.
        expect(elapsed).toBeGreaterThanOrEqual(580);
        const state = await finalState(await open());
        expect(Object.values(state)).toEqual(dead.map(() => "pending token=1 attempts=0 redrives=1"));
        const notes = await (await open()).db.selectFrom("redrives").select(["note", "at_ms"]).orderBy("at_ms").execute();
        expect(new Set(notes.map((n) => n.note))).toEqual(new Set(["OPS-7"]));
        const times = notes.map((n) => Number(n.at_ms));
        for (let i = 1; i < times.length; i++) expect((times[i] ?? 0) - (times[i - 1] ?? 0)).toBeGreaterThanOrEqual(20);
        // A rerun finds nothing dead and writes nothing.
        const rerun = await verq("jobs", "redrive", "--all", "--db", database.db, "--note", "OPS-7", "--rate", "50/s", "--json");
        expect(json(rerun.out)).toMatchObject({ total: 0, redriven: 0, stopped: "done" });
      });

      it("O1: --reason and --older-than choose the jobs; --dry-run lists them and changes nothing", async () => {
        const s = await open();
        await makeDeadJobs(s, 3, "old");
        const queue = new JobQueue(s, { defaultMaxAttempts: 1 });
        await queue.enqueue({ id: "exhausted-1", payload: {} });
        const [claimed] = await queue.claimMany("w", 1);
        await queue.finish(claimed?.id ?? "", claimed?.token ?? 0, "retry");
        const dry = await verq(
          "jobs",
          "redrive",
          "--all",
          "--db",
          database.db,
          "--note",
          "OPS-8",
          "--rate",
          "100/s",
          "--reason",
          "permanent",
          "--dry-run",
          "--json",
        );
        expect(dry.code).toBe(0);
        expect(json(dry.out)).toMatchObject({
          dryRun: true,
          count: 3,
          jobs: ["old-0000", "old-0001", "old-0002"].map((id) => ({ id, reason: "permanent" })),
        });
        const human = await verq(
          "jobs",
          "redrive",
          "--all",
          "--db",
          database.db,
          "--note",
          "OPS-8",
          "--rate",
          "100/s",
          "--dry-run",
        );
        expect(human.out).toContain("would redrive exhausted-1 exhausted since");
        expect(human.out).toContain("dry run: 4 dead jobs would be redriven at 100/s");
        expect(Object.values(await finalState(s)).every((v) => v.startsWith("dead"))).toBe(true);
        expect(await s.countEvents()).toBe(4 * 3);
        const young = await verq(
          "jobs",
          "redrive",
          "--all",
          "--db",
          database.db,
          "--note",
          "OPS-8",
          "--rate",
          "100/s",
          "--older-than",
          "1h",
          "--json",
        );
        expect(json(young.out)).toMatchObject({ total: 0, redriven: 0 });
        const byReason = await verq(
          "jobs",
          "redrive",
          "--all",
          "--db",
          database.db,
          "--note",
          "OPS-8",
          "--rate",
          "100/s",
          "--reason",
          "exhausted",
          "--json",
        );
        expect(json(byReason.out)).toMatchObject({ total: 1, redriven: 1 });
        expect((await finalState(s))["exhausted-1"]).toBe("pending token=1 attempts=0 redrives=1");
        expect((await finalState(s))["old-0000"]).toBe("dead token=1 attempts=1 redrives=0");
      });

      it("cancelled jobs are passed over by --all and by its --dry-run; --reason cancelled takes them", async () => {
        const s = await open();
        const queue = new JobQueue(s);
        await makeDeadJobs(s, 2);
        for (const id of ["cancelled-a", "cancelled-b"]) {
          await queue.enqueue({ id, payload: {} });
          expect(await queue.cancel(id, { note: "OPS-5" })).toMatchObject({ cancelled: true });
        }
        const all = ["jobs", "redrive", "--all", "--db", database.db, "--note", "OPS-9", "--rate", "100/s", "--json"];
        const dry = await verq(...all, "--dry-run");
        expect((json(dry.out).jobs as { id: string }[]).map((j) => j.id)).toEqual(["dead-0000", "dead-0001"]);
        expect(json((await verq(...all)).out)).toMatchObject({ total: 2, redriven: 2, stopped: "done" });
        expect(await queue.get("cancelled-a")).toMatchObject({ state: "dead", reason: "cancelled" });
        const cancelled = await verq(...all, "--reason", "cancelled");
        expect(json(cancelled.out)).toMatchObject({ total: 2, redriven: 2 });
        expect(await queue.get("cancelled-b")).toMatchObject({ state: "pending", reason: null });
      });

      it("O1: while another run holds the lock, a second exits 3 with VERQ_BULK_RUNNING naming the holder and since when; nothing is redriven", async () => {
        const s = await open();
        await makeDeadJobs(s, 2);
        const locks = new OperatorLocks(s);
        const held = await locks.acquire(BULK_REDRIVE_LOCK, "ops-host:4242", 60_000);
        if (!held.acquired) throw new Error("not acquired");
        const run = await verq(
          "jobs",
          "redrive",
          "--all",
          "--db",
          database.db,
          "--note",
          "OPS-9",
          "--rate",
          "10/s",
          "--owner",
          "me:1",
        );
        expect(run.code).toBe(3);
        expect(run.err).toContain(
          "verq: VERQ_BULK_RUNNING: a bulk redrive is already running on this store: held by ops-host:4242 since ",
        );
        expect(run.err).toContain(new Date(held.lock.since).toISOString());
        expect(Object.values(await finalState(s))).toEqual([
          "dead token=1 attempts=1 redrives=0",
          "dead token=1 attempts=1 redrives=0",
        ]);
        await locks.release(BULK_REDRIVE_LOCK, held.lock.token);
        const after = await verq(
          "jobs",
          "redrive",
          "--all",
          "--db",
          database.db,
          "--note",
          "OPS-9",
          "--rate",
          "10/s",
          "--owner",
          "me:1",
          "--json",
        );
        expect(json(after.out)).toMatchObject({ redriven: 2, owner: "me:1" });
        expect(await locks.get(BULK_REDRIVE_LOCK)).toMatchObject({ state: "free", token: 2 });
      });

      it("O1, J7: redrives another process made in the window count against the rate: the machine holds back the excess, reported, left dead, and a rerun takes them", async () => {
        const s = await open();
        await makeDeadJobs(s, 12);
        // Five redrives by someone else just now fill a 5/s window.
        const other = new JobQueue(s, { redriveLimit: { max: 5, windowMs: 1_000 } });
        for (const id of ["dead-0007", "dead-0008", "dead-0009", "dead-0010", "dead-0011"])
          await other.redrive(id, { note: "OTHER-1" });
        const run = await verq("jobs", "redrive", "--all", "--db", database.db, "--note", "OPS-10", "--rate", "5/s", "--json");
        expect(run.code).toBe(0);
        const report = json(run.out) as { total: number; redriven: number; heldBack: number; failed: number };
        expect(report.total).toBe(7);
        expect(report.heldBack).toBeGreaterThanOrEqual(1);
        expect(report.redriven + report.heldBack).toBe(7);
        expect(report.failed).toBe(0);
        const dead = Object.entries(await finalState(s)).filter(([, v]) => v.startsWith("dead"));
        expect(dead).toHaveLength(report.heldBack);
        await new Promise((r) => setTimeout(r, 1_100));
        const rerun = await verq("jobs", "redrive", "--all", "--db", database.db, "--note", "OPS-10", "--rate", "5/s", "--json");
        expect(json(rerun.out)).toMatchObject({ total: report.heldBack, redriven: report.heldBack, heldBack: 0 });
        expect(Object.values(await finalState(s)).every((v) => v === "pending token=1 attempts=0 redrives=1")).toBe(true);
      });

      it("bad options are usage errors (exit 2) before the database is opened", async () => {
        const base = ["jobs", "redrive", "--db", database.db, "--note", "OPS-1"];
        const runs = [
          await verq(...base, "--all"),
          await verq(...base, "--all", "--rate", "fast"),
          await verq(...base, "--all", "--rate", "0/s"),
          await verq(...base, "--all", "--rate", "10/h"),
          await verq(...base, "a", "--all", "--rate", "10/s"),
          await verq(...base, "a", "--rate", "10/s"),
          await verq(...base, "a", "--lease", "10s"),
          await verq(...base),
          await verq(...base, "--all", "--rate", "10/s", "--reason", "tired"),
          await verq(...base, "--all", "--rate", "10/s", "--older-than", "old"),
          await verq(...base, "--all", "--rate", "10/s", "--lease", "10ms"),
          await verq("jobs", "redrive", "--db", database.db, "--note", "not a ticket", "--all", "--rate", "10/s"),
        ];
        expect(runs.map((r) => r.code)).toEqual(runs.map(() => 2));
        expect(await leftBehind(database)).toEqual([]);
      });
    });
  });
}
