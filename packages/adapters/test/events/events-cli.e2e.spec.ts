import type { ChildProcess } from "node:child_process";
import { ManualClock } from "@verq/core";
import { EventSubscriptions, JobQueue, readAllEvents, type VerqStore } from "@verq/store";
import { ENGINES, createTestDatabase, engineAvailable, runVerq, spawnVerq, type TestDatabase } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";
import { verq } from "../support/run-cli.ts";

interface Line {
  readonly position: number;
  readonly type: string;
  readonly streamType: string;
  readonly streamId: string;
  readonly version: number;
  readonly at: number;
  readonly data: unknown;
}

const parse = (stdout: string): Line[] =>
  stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Line);

/** Polls `condition` every 20 ms until it holds; fails after `timeoutMs`. */
async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A running `verq events … --follow` and what it has printed so far. */
function follow(
  db: string,
  args: readonly string[],
): { child: ChildProcess; lines: () => Line[]; exit: Promise<[number | null, string | null]> } {
  const child = spawnVerq(["events", "--db", db, "--follow", "--poll", "20ms", ...args]);
  let stdout = "";
  child.stdout?.on("data", (c: Buffer) => (stdout += c.toString()));
  const exit = new Promise<[number | null, string | null]>((resolve) =>
    child.once("exit", (code, signal) => resolve([code, signal])),
  );
  // Only complete lines: a kill may cut the last one.
  return { child, lines: () => parse(stdout.slice(0, stdout.lastIndexOf("\n") + 1)), exit };
}

const increasing = (lines: readonly Line[]) => lines.every((l, i) => i === 0 || l.position > (lines[i - 1]?.position ?? 0));

let database: TestDatabase | undefined;
let store: VerqStore | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await store?.close();
  await database?.dispose();
  store = undefined;
  database = undefined;
});

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] verq events`, () => {
    it("E1: a subscriber killed mid-batch, and again while following, resumes from its checkpoint and sees every event at least once, in position order", async () => {
      database = await createTestDatabase(engine);
      store = await database.open();
      const { db } = database;
      const queue = new JobQueue(store, { clock: new ManualClock() });
      let next = 0;
      const enqueue = (n: number) =>
        queue.enqueueMany(Array.from({ length: n }, () => ({ id: `job-${++next}`, payload: { n: next } })));
      await enqueue(30);

      // 1. Killed (SIGKILL) after printing half of its first batch: the checkpoint has not moved.
      const first = await runVerq(["events", "--db", db, "--name", "audit", "--batch-size", "7"], {
        VERQ_FAILPOINTS: "events.midBatch=kill",
      });
      expect(first.signal).toBe("SIGKILL");
      expect(parse(first.stdout).map((l) => l.position)).toEqual([1, 2, 3, 4]);
      const subscriptions = new EventSubscriptions(store);
      expect(await subscriptions.checkpoint("audit")).toBeUndefined();

      // 2. Following, with events committed while it runs, killed with SIGKILL from outside.
      const second = follow(db, ["--name", "audit", "--batch-size", "7"]);
      children.push(second.child);
      await until(() => second.lines().length >= 30, "the catch-up");
      await enqueue(20);
      await until(() => second.lines().length >= 40, "live events");
      second.child.kill("SIGKILL");
      expect(await second.exit).toEqual([null, "SIGKILL"]);
      const atKill = (await subscriptions.checkpoint("audit"))?.position ?? 0;
      expect(atKill).toBeGreaterThan(0);
      await enqueue(15);

      // 3. Started again: from the checkpoint, until SIGTERM.
      const third = follow(db, ["--name", "audit", "--batch-size", "7"]);
      children.push(third.child);
      const log = await readAllEvents(store.db);
      const lastPosition = log.at(-1)?.position ?? 0;
      await until(() => third.lines().at(-1)?.position === lastPosition, "the end of the log");
      third.child.kill("SIGTERM");
      expect(await third.exit).toEqual([0, null]);

      const runs = [parse(first.stdout), second.lines(), third.lines()];
      for (const run of runs) expect(increasing(run)).toBe(true);
      // The interrupted batch came again; each restart began at its checkpoint, never after it.
      expect(runs[1]?.[0]?.position).toBe(1);
      expect(runs[2]?.[0]?.position).toBe(atKill + 1);
      // At least once: every event of the log, as it is stored, and nothing else.
      const byPosition = new Map(runs.flat().map((l) => [l.position, l]));
      expect([...byPosition.values()].sort((a, b) => a.position - b.position)).toEqual(
        log.map((e) => ({
          position: e.position,
          type: e.type,
          streamType: e.streamType,
          streamId: e.streamId,
          version: e.version,
          at: e.at,
          data: e.data,
        })),
      );
      expect((await subscriptions.checkpoint("audit"))?.position).toBe(lastPosition);
    });

    it("prints from a position and by type without keeping a checkpoint; bad options are exit 2 and change nothing", async () => {
      database = await createTestDatabase(engine);
      store = await database.open();
      const { db } = database;
      await new JobQueue(store, { clock: new ManualClock() }).enqueueMany(
        [1, 2, 3].map((i) => ({ id: `j${i}`, payload: { i } })),
      );
      const all = await verq("events", "--db", db, "--from", "2");
      expect(all.code).toBe(0);
      expect(parse(all.out).map((l) => [l.position, l.streamId])).toEqual([
        [2, "j2"],
        [3, "j3"],
      ]);
      const guid = await verq("events", "--db", db, "--type", "guid");
      expect(guid).toEqual({ code: 0, out: "", err: "" });
      expect(parse((await verq("events", "--db", db, "--type", "message,job")).out)).toHaveLength(3);
      for (const bad of [
        ["--from", "-1"],
        ["--from", "x"],
        ["--type", "jobs"],
        ["--batch-size", "0"],
        ["--poll", "soon"],
        ["--name", "has space"],
      ]) {
        const result = await verq("events", "--db", db, ...bad);
        expect(result.code, bad.join(" ")).toBe(2);
        expect(result.err).toMatch(/VERQ_INVALID_ARGUMENT/);
      }
      expect(await new EventSubscriptions(store).checkpoints()).toEqual([]);
    });
  });
}

it("a SQLite file that does not exist is exit 4 and is not created", async () => {
  const missing = `/tmp/verq-events-missing-${process.pid}.sqlite`;
  const result = await verq("events", "--db", missing);
  expect(result.code).toBe(4);
  const { existsSync } = await import("node:fs");
  expect(existsSync(missing)).toBe(false);
});
