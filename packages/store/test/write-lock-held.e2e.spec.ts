import { JOB_STREAM, isVerqError } from "@verq/core";
import { JobQueue, checkStore, formatFinding, openStore, readAllEvents, type VerqStore } from "@verq/store";
import { afterEach, describe, expect, it } from "vitest";
import { readJsonLines } from "./helpers/read-jsonl.ts";
import { helperScript, runTsChild, type TsChild } from "./helpers/run-ts-child.ts";
import { projectionRows, tableRows } from "./helpers/snapshot.ts";
import { makeTempDir, type TempDir } from "./helpers/temp-dir.ts";

/** What `patient-claimer.ts` writes per claim and per finish. */
interface Line {
  readonly kind: "first" | "claim" | "finish";
  readonly id: string;
  readonly token: number;
  readonly owner: string;
  readonly startedAt: number;
  readonly endedAt: number;
}

/** The wall-clock span `lock-holder.ts` held the write lock, from its last line. */
async function heldSpan(holder: TsChild): Promise<{ from: number; to: number }> {
  const line = await holder.waitForLine((l) => l.startsWith("held "), 30_000);
  const [, from, to] = line.split(" ").map(Number);
  return { from: from!, to: to! };
}

/** Starts a child that takes the file's write lock for `holdMs`, once it holds it. */
async function holdLock(file: string, holdMs: number): Promise<TsChild> {
  const holder = runTsChild(helperScript("lock-holder.ts"), [file, String(holdMs)]);
  await holder.waitForLine((l) => l === "locked", 30_000);
  return holder;
}

/** `verq check` finds nothing, and the projections are the fold of the log. */
async function expectConsistent(store: VerqStore): Promise<void> {
  expect((await checkStore(store)).findings.map(formatFinding)).toEqual([]);
  const live = await projectionRows(store);
  await store.rebuildProjections();
  expect(await projectionRows(store)).toEqual(live);
}

const OWNERS = ["claimer-a", "claimer-b", "claimer-c"] as const;
const HOLD_MS = 2_500;
/** Longer than the four writes' two 500 ms waits each, one after the other (a busy handler blocks the event loop), with room for a loaded machine. */
const LONG_HOLD_MS = 8_000;

let tmp: TempDir | undefined;
afterEach(() => {
  tmp?.remove();
  tmp = undefined;
});

describe("SQLite: another process holds the write lock for seconds", () => {
  it("claims, enqueues and finishes of four processes wait for it and go on; every job is claimed once, with token 1, and done once", async () => {
    tmp = makeTempDir("write-lock");
    const file = tmp.file("verq.sqlite");
    const store = await openStore({ path: file });
    try {
      const queue = new JobQueue(store);
      await queue.enqueueMany(Array.from({ length: 300 }, (_, i) => ({ id: `job-${i}`, payload: { i } })));
      const mine = await queue.claim("parent", { leaseMs: 600_000 });
      expect(mine).not.toBeNull();

      const outs = OWNERS.map((owner) => tmp!.file(`${owner}.jsonl`));
      // A wait limit well above the hold: once the lock is let go, SQLite's busy handler is no
      // queue, and on a loaded machine one claimer can see the others take the lock for seconds.
      const claimers = OWNERS.map((owner, i) =>
        runTsChild(helperScript("patient-claimer.ts"), [file, owner, outs[i]!, "1000", "20000"]),
      );
      await Promise.all(claimers.map((c) => c.waitForLine((l) => l === "ready", 30_000)));

      // The lock is taken before any claimer starts: their first claims all meet it.
      const holder = await holdLock(file, HOLD_MS);
      for (const c of claimers) c.process.stdin.end("go\n");
      // This process's own writes below block its event loop while they wait in SQLite's busy
      // handler: the claimers must have their `go` first.
      await Promise.all(claimers.map((c) => c.waitForLine((l) => l === "started", 30_000)));
      const enqueueStarted = Date.now();
      const [enqueued, finished] = await Promise.all([
        queue.enqueueMany(Array.from({ length: 100 }, (_, i) => ({ id: `late-${i}`, payload: { i } }))),
        queue.finish(mine!.id, mine!.token, "ok"),
      ]);
      const enqueueEnded = Date.now();
      const held = await heldSpan(holder);
      expect(await holder.exited()).toBe(0);
      const codes = await Promise.all(claimers.map((c) => c.exited(60_000)));
      const diagnostics = claimers.map((c, i) => `${OWNERS[i]}: ${c.stdout().trim()} ${c.stderr().trim()}`).join("\n");
      expect(codes, diagnostics).toEqual([0, 0, 0]);

      // This process's writes waited for the lock, then went through.
      expect(enqueueStarted).toBeLessThan(held.to);
      expect(enqueueEnded).toBeGreaterThanOrEqual(held.to);
      expect(enqueued.every((r) => r.created)).toBe(true);
      expect(finished).toBe(true);

      // The claimers' first claims were made while the lock was held and returned after it.
      const lines = outs.flatMap((out) => readJsonLines<Line>(out));
      const claims = lines.filter((l) => l.kind === "claim");
      const waited = lines.filter((l) => l.kind === "first" && l.startedAt < held.to && l.endedAt >= held.to);
      expect(new Set(waited.map((l) => l.owner)), diagnostics).toEqual(new Set(OWNERS));

      // Every job claimed exactly once, with token 1, and done once: by what the claimers saw
      // and by the event log.
      const ids = [...Array.from({ length: 300 }, (_, i) => `job-${i}`), ...Array.from({ length: 100 }, (_, i) => `late-${i}`)];
      expect(claims.map((l) => l.id).sort()).toEqual(ids.filter((id) => id !== mine!.id).sort());
      expect(claims.every((l) => l.token === 1)).toBe(true);
      const events = await readAllEvents(store.db, JOB_STREAM);
      const loggedClaims = events.filter((e) => e.type === "job.claimed");
      expect(loggedClaims.map((e) => `${e.streamId}#${(e.data as { token: number }).token}`).sort()).toEqual(
        ids.map((id) => `${id}#1`).sort(),
      );
      const completions = events.filter((e) => e.type === "job.completed").map((e) => e.streamId);
      expect(completions.sort()).toEqual([...ids].sort());
      const maxWait = Math.max(...claims.map((l) => l.endedAt - l.startedAt));
      console.log(
        `[write-lock] heldMs=${held.to - held.from} claims=${claims.length} byOwner=${JSON.stringify(
          Object.fromEntries(OWNERS.map((o) => [o, claims.filter((l) => l.owner === o).length])),
        )} longestClaimMs=${maxWait} enqueueMs=${enqueueEnded - enqueueStarted}`,
      );
      await expectConsistent(store);
    } finally {
      await store.close();
    }
  }, 90_000);

  it("held longer than the wait limit: enqueue, claim and finish fail with VERQ_STORE_BUSY before it is let go, write nothing, and work once it is; an open of the up-to-date store reads only and succeeds meanwhile", async () => {
    tmp = makeTempDir("write-lock-limit");
    const file = tmp.file("verq.sqlite");
    const store = await openStore({ path: file, busyTimeoutMs: 500 });
    try {
      const queue = new JobQueue(store);
      await queue.enqueueMany(Array.from({ length: 10 }, (_, i) => ({ id: `job-${i}`, payload: { i } })));
      const mine = await queue.claim("parent", { leaseMs: 600_000 });
      const before = { events: await tableRows(store, "events"), ...(await projectionRows(store)) };

      const holder = await holdLock(file, LONG_HOLD_MS);
      const outcomes = await Promise.all(
        [
          () => queue.enqueueMany(Array.from({ length: 50 }, (_, i) => ({ id: `batch-${i}`, payload: { i } }))),
          () => queue.claim("parent", { leaseMs: 600_000 }),
          () => queue.finish(mine!.id, mine!.token, "ok"),
        ].map((write) =>
          write().then(
            () => ({ error: null, at: Date.now() }),
            (error: unknown) => ({ error, at: Date.now() }),
          ),
        ),
      );
      // The store is up to date: opening it has no migration to run, so it takes no lock.
      const reader = await openStore({ path: file, busyTimeoutMs: 500, create: false });
      const openedAt = Date.now();
      expect(reader.appliedMigrations).toEqual([]);
      expect(await new JobQueue(reader).get(mine!.id)).toMatchObject({ state: "leased" });
      await reader.close();
      const held = await heldSpan(holder);
      expect(await holder.exited()).toBe(0);
      expect(openedAt, "opened while the lock was held").toBeLessThan(held.to);
      for (const { error, at } of outcomes) {
        expect(isVerqError(error, "VERQ_STORE_BUSY"), String(error)).toBe(true);
        expect((error as Error).message).toMatch(/locked by another process .*nothing was written/);
        // It gave up at the limit, while the lock was still held, not once it was let go.
        expect(at, "failed only after the lock was let go").toBeLessThan(held.to);
      }

      // Nothing of them was written: the log and the projections are as before the lock.
      expect({ events: await tableRows(store, "events"), ...(await projectionRows(store)) }).toEqual(before);
      console.log(`[write-lock] limitMs=500 heldMs=${held.to - held.from} busyErrors=${outcomes.length}`);

      // The lock let go, the same store takes the same writes.
      expect((await queue.enqueueMany(Array.from({ length: 50 }, (_, i) => ({ id: `batch-${i}`, payload: { i } })))).length).toBe(
        50,
      );
      expect(await queue.finish(mine!.id, mine!.token, "ok")).toBe(true);
      expect(await queue.claim("parent", { leaseMs: 600_000 })).not.toBeNull();
      await expectConsistent(store);
    } finally {
      await store.close();
    }
  }, 60_000);
});
