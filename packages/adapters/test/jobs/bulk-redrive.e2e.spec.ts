import { spawn } from "node:child_process";
import { BULK_REDRIVE_LOCK, LOCK_STREAM } from "@verq/core";
import { OperatorLocks, readAllEvents, type VerqStore } from "@verq/store";
import { createTestDatabase, runVerq, spawnVerq, verqCommand, type TestDatabase } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";
import { finalState, makeDeadJobs } from "./support/dead-jobs.ts";

/*
 * Bulk redrive with real child processes on SQLite (the store parts run on both engines in
 * jobs-bulk.int.spec.ts and the store's operator-locks.int.spec.ts): the pace of 1,000 dead jobs
 * at 200/s, Ctrl-C and a rerun against an uninterrupted run, one run at a time, a crashed
 * holder, the bar on a real terminal, NDJSON from stdin.
 */

const NODE_ARGS = verqCommand();

const opened: { store: VerqStore; database: TestDatabase }[] = [];
afterEach(async () => {
  for (const { store, database } of opened.splice(0)) {
    await store.close();
    await database.dispose();
  }
});
async function deadStore(count: number): Promise<{ store: VerqStore; db: string }> {
  const database = await createTestDatabase("sqlite", "bulk.sqlite");
  const store = await database.open();
  opened.push({ store, database });
  await makeDeadJobs(store, count);
  return { store, db: database.db };
}
const auditTimes = async (store: VerqStore) =>
  (await store.db.selectFrom("redrives").select("at_ms").orderBy("at_ms").execute()).map((r) => Number(r.at_ms));
const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 60_000) => {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};
const exited = (child: ReturnType<typeof spawnVerq>) => {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once("close", (status) => resolve({ status, stdout, stderr })),
  );
};
const redriveAll = (db: string, ...more: string[]) => ["jobs", "redrive", "--all", "--db", db, "--note", "OPS-1000", ...more];

describe("verq jobs redrive --all as a real process", () => {
  it("O1: 1,000 dead jobs at --rate 200/s take at least 5 s, never more than 200 in any 1 s, 1,000 audit rows; Ctrl-C then a rerun ends in the same state", async () => {
    const whole = await deadStore(1_000);
    const started = Date.now();
    const run = await runVerq(redriveAll(whole.db, "--rate", "200/s", "--json"));
    const wallMs = Date.now() - started;
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout) as { redriven: number; heldBack: number; failed: number; elapsedMs: number };
    expect(report).toMatchObject({ total: 1_000, redriven: 1_000, heldBack: 0, failed: 0, skipped: 0, stopped: "done" });
    const times = await auditTimes(whole.store);
    expect(times).toHaveLength(1_000);
    // The 201st redrive after any one is at least a whole second later: 999 intervals of 5 ms.
    for (let i = 0; i + 200 < times.length; i++) expect((times[i + 200] ?? 0) - (times[i] ?? 0)).toBeGreaterThanOrEqual(1_000);
    expect((times.at(-1) ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(4_995);
    expect(wallMs).toBeGreaterThanOrEqual(5_000);
    console.log(
      `[bulk] 1,000 at 200/s: process ${wallMs} ms, run ${report.elapsedMs} ms, first to last audit ${(times.at(-1) ?? 0) - (times[0] ?? 0)} ms`,
    );
    const expected = await finalState(whole.store);
    expect(Object.values(expected).every((v) => v === "pending token=1 attempts=0 redrives=1")).toBe(true);

    // The same 1,000 elsewhere, interrupted part-way by SIGINT, then run again.
    const cut = await deadStore(1_000);
    const child = spawnVerq(redriveAll(cut.db, "--rate", "200/s", "--json"));
    const done = exited(child);
    await until("the first 150 redrives", async () => (await auditTimes(cut.store)).length >= 150);
    child.kill("SIGINT");
    const stopped = await done;
    expect(stopped.status).toBe(130);
    const partial = JSON.parse(stopped.stdout) as { redriven: number; stopped: string };
    expect(partial.stopped).toBe("interrupted");
    expect(partial.redriven).toBeGreaterThanOrEqual(150);
    expect(partial.redriven).toBeLessThan(1_000);
    const between = Object.values(await finalState(cut.store));
    // Every job either redriven with its one audit row, or untouched.
    expect(between.filter((v) => v === "pending token=1 attempts=0 redrives=1")).toHaveLength(partial.redriven);
    expect(between.filter((v) => v === "dead token=1 attempts=1 redrives=0")).toHaveLength(1_000 - partial.redriven);
    expect(await new OperatorLocks(cut.store).get(BULK_REDRIVE_LOCK)).toMatchObject({ state: "free" });
    const rerun = await runVerq(redriveAll(cut.db, "--rate", "200/s", "--json"));
    expect(rerun.status).toBe(0);
    expect(JSON.parse(rerun.stdout)).toMatchObject({ total: 1_000 - partial.redriven, redriven: 1_000 - partial.redriven });
    expect(await finalState(cut.store)).toEqual(expected);
    expect(await auditTimes(cut.store)).toHaveLength(1_000);
  }, 180_000);

  it("O1: a second run exits 3 naming the holder; a holder killed with SIGKILL blocks until its lease runs out, then a rerun takes over and continues", async () => {
    const { store, db } = await deadStore(300);
    const first = spawnVerq(redriveAll(db, "--rate", "20/s", "--owner", "runner-a:1", "--lease", "2s"));
    const firstDone = exited(first);
    const locks = new OperatorLocks(store);
    await until("the first run's lock", async () => (await locks.get(BULK_REDRIVE_LOCK)).state === "held");
    const second = await runVerq(redriveAll(db, "--rate", "20/s", "--owner", "runner-b:2"));
    expect(second.status).toBe(3);
    expect(second.stderr).toContain(
      "verq: VERQ_BULK_RUNNING: a bulk redrive is already running on this store: held by runner-a:1 since ",
    );
    first.kill("SIGKILL");
    await firstDone;
    const crashed = await locks.get(BULK_REDRIVE_LOCK);
    expect(crashed).toMatchObject({ state: "held", owner: "runner-a:1", token: 1 });
    await until("the crashed holder's lease", () => Promise.resolve(Date.now() >= (crashed.leaseUntil ?? 0)));
    const takeover = await runVerq(redriveAll(db, "--rate", "200/s", "--owner", "runner-b:2", "--json"));
    expect(takeover.status).toBe(0);
    expect(Object.values(await finalState(store)).every((v) => v === "pending token=1 attempts=0 redrives=1")).toBe(true);
    const lockEvents = (await readAllEvents(store.db, LOCK_STREAM)).map((e) => e.type);
    expect(lockEvents).toContain("lock.expired");
    expect(lockEvents.at(-1)).toBe("lock.released");
  }, 120_000);

  it("O1: on a terminal the run draws a cli-progress bar on stderr, then prints the summary", async () => {
    const { db } = await deadStore(40);
    const command = [process.execPath, ...NODE_ARGS, ...redriveAll(db, "--rate", "100/s")].map((a) => `'${a}'`).join(" ");
    // script(1) gives the child a real pseudo-terminal.
    const child = spawn("script", ["-qec", command, "/dev/null"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    const status = await new Promise<number | null>((resolve) => child.once("close", resolve));
    expect(status).toBe(0);
    expect(out).toContain("redrive [");
    expect(out).toMatch(/40\/40 100% \| redriven 40, held back 0, failed 0/);
    expect(out).toMatch(/redriven 40, held back by the rate limit 0, failed 0 in \d+\.\d s/);
  }, 60_000);

  it("jobs enqueue --from - reads NDJSON from stdin", async () => {
    const database = await createTestDatabase("sqlite", "stdin.sqlite");
    const store = await database.open();
    opened.push({ store, database });
    const child = spawn(
      process.execPath,
      [...NODE_ARGS, "jobs", "enqueue", "--db", database.db, "--from", "-", "--chunk", "100"],
      {
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    const done = exited(child);
    for (let i = 0; i < 250; i++) child.stdin.write(`${JSON.stringify({ id: `in-${i}`, payload: { i } })}\n`);
    child.stdin.end();
    const run = await done;
    expect([run.status, run.stderr]).toEqual([0, ""]);
    expect(run.stdout).toContain("enqueued 250 new, 0 already there with the same payload (no-op), from 250 lines in 3 chunks");
    expect((await store.db.selectFrom("jobs").select("id").execute()).length).toBe(250);
  }, 60_000);
});
