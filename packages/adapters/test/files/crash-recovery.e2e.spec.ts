import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { COURSE_EXPECTED, ENGINES, engineAvailable, type Engine } from "@verq/testing";
import { afterEach, describe, expect, it } from "vitest";
import { currentOwner } from "../../src/files/claim-name.ts";
import { runVerq, spawnHelper } from "./helpers/cli-child.ts";
import {
  bulkFixture,
  makeQueue,
  names,
  outcome,
  verq,
  withLedger,
  writeCourseFixture,
  type TestQueue,
} from "./helpers/queue-fixture.ts";

const queues: TestQueue[] = [];
afterEach(async () => {
  for (const q of queues.splice(0)) await q.remove();
});
const queue = async (engine: Engine, prefix: string) => {
  const q = await makeQueue(engine, prefix);
  queues.push(q);
  return q;
};

async function until(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    describe("F3 crash safety: a consumer that dies is recovered at the next start", () => {
      it("F3: a consumer SIGKILLed mid-run and restarted: totals unchanged, processing/ empty, nothing applied twice", async () => {
        const { files, expected } = bulkFixture(300);
        const q = await queue(engine, "sigkill");
        q.write(files);
        // A real process whose handler takes 3 ms a message, killed after its 60th file.
        const victim = spawnHelper("slow-consumer.ts", [q.root, q.db, "3"]);
        await until(() => /settled 60\n/.test(victim.stdout()), `60 files settled; stderr: ${victim.stderr()}`);
        victim.process.kill("SIGKILL");
        expect(await victim.exited()).toBe("SIGKILL");
        const left = names(q.dirs.inbox).length;
        expect(left, "the kill must land mid-run").toBeGreaterThan(100);

        const restart = await runVerq(["files", "consume", q.root, "--db", q.db]);
        expect(restart.status, restart.stderr).toBe(0);
        expect(restart.stdout).toMatch(/^done=\d+ error=\d+ duplicates=\d+ recovered=[01]\n$/);
        const result = await outcome(q);
        expect(result).toMatchObject({
          inbox: 0,
          processing: 0,
          done: expected.done,
          error: expected.error,
          processed: expected.processed,
        });
        expect(result.duplicates).toEqual(expected.duplicates);
        expect(result.duplicateFiles).toBe(300 / 10 - 300 / 50); // every 10th file resends, except those that are every 25th (bad)
        expect(result.maxClaimsPerStream).toBe(1);
      }, 40_000);

      // Each failpoint stops the real CLI at one step of one file; the restart (here, in this
      // process) must end exactly where an uninterrupted run ends: SPEC F4's figures.
      const cases = [
        { point: "files.afterRename", action: "exit(73)", first: "valid" },
        { point: "files.afterPlace", action: "exit(73)", first: "valid" },
        { point: "files.afterPlace", action: "kill", first: "broken" },
        { point: "files.afterCommit", action: "exit(73)", first: "valid" },
        { point: "files.afterCommit", action: "exit(73)", first: "broken" },
      ] as const;
      for (const c of cases) {
        it(`F3: stopped at ${c.point}=${c.action} on a ${c.first} file, then restarted: F4's figures exactly, processing/ empty`, async () => {
          const q = await queue(engine, "failpoint");
          writeCourseFixture(q);
          // Sorted first, so the failpoint fires on it. The broken one makes F4's error count 3.
          const first = c.first === "valid" ? JSON.stringify({ msg_id: "M000", order_no: "O-1000", seq: 1, amount: 1 }) : "{";
          writeFileSync(join(q.dirs.inbox, "aaa-first.json"), first);

          const crashed = await runVerq(["files", "consume", q.root, "--db", q.db], {
            VERQ_FAILPOINTS: `${c.point}=${c.action}`,
          });
          expect(crashed.status).toBe(c.action === "kill" ? "SIGKILL" : 73);
          expect(names(q.dirs.processing)).toHaveLength(1);
          expect(names(q.dirs.processing)[0]).toMatch(/^[0-9a-z]+~\d+@[A-Za-z0-9-]+~aaa-first\.json$/);

          const restart = await verq("files", "consume", q.root, "--db", q.db);
          const errors = c.first === "valid" ? 2 : 3;
          expect(restart).toEqual({ code: 0, out: `done=${21 - errors} error=${errors} duplicates=3 recovered=1\n`, err: "" });
          const result = await outcome(q);
          expect(result).toMatchObject({
            inbox: 0,
            processing: 0,
            done: 21 - errors,
            error: errors,
            processed: c.first === "valid" ? 16 : 15,
          });
          expect(result.duplicates).toEqual(COURSE_EXPECTED.duplicates);
          expect(result.maxClaimsPerStream).toBe(1);
          const placed = c.first === "valid" ? names(q.dirs.done) : names(q.dirs.error);
          expect(placed).toContain("aaa-first.json");
          if (c.first === "broken") {
            expect((await verq("files", "errors", q.root, "--db", q.db)).out.split("\n")[1]).toBe("aaa-first.json,parse");
          }
        }, 20_000);
      }

      it("F1: recovery never takes a file whose owner is alive (this host) or unknown (another host), unless told to by --recover-after", async () => {
        const q = await queue(engine, "live-owner");
        const msg = (id: string) => JSON.stringify({ msg_id: id, order_no: "O", seq: Number(id.slice(1)), amount: 1 });
        // The parent of this test process is alive on this host, named as the consumer names it; "elsewhere" is another host.
        const { host } = currentOwner();
        writeFileSync(join(q.dirs.processing, `abcdef01~${process.ppid}@${host}~live.json`), msg("L1"));
        writeFileSync(join(q.dirs.processing, `abcdef02~1@elsewhere~remote.json`), msg("L2"));
        // No claim name at all: put there by hand, so nobody owns it.
        writeFileSync(join(q.dirs.processing, "by-hand.json"), msg("L3"));
        await withLedger(q.db, async (ledger) => {
          const { FileConsumer } = await import("../../src/files/file-consumer.ts");
          const first = await new FileConsumer({ root: q.root, ledger }).drain();
          expect(first).toMatchObject({ done: 1, recovered: 1 });
          expect(names(q.dirs.processing)).toHaveLength(2);
          const forced = await new FileConsumer({ root: q.root, ledger, recoverAfterMs: 0 }).drain();
          expect(forced).toMatchObject({ done: 2, recovered: 2 });
          expect(names(q.dirs.processing)).toEqual([]);
          expect(names(q.dirs.done)).toEqual(["by-hand.json", "live.json", "remote.json"]);
        });
      });
    });
  });
}
