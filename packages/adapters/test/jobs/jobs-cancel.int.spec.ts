import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ENGINES, createTestDatabase, engineAvailable, spawnVerq, type TestDatabase } from "@verq/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { json, verq } from "../support/run-cli.ts";

/*
 * `verq jobs cancel` on both engines: its exit codes (0 cancelled, 3 refused by the job machine,
 * 4 unknown, 2 usage), and a real `verq jobs work` process whose job is cancelled while it is
 * being delivered: the worker's finish is refused and the job stays dead(cancelled).
 */

let server: Server;
let target: string;
let requests = 0;
let releaseDelivery: (() => void) | null = null;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    req.resume();
    // Hold the delivery until the test has cancelled the job.
    req.on("end", () => {
      releaseDelivery = () => res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  target = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const until = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000) => {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] verq jobs cancel`, () => {
    let database: TestDatabase;
    let db: string;
    beforeEach(async () => {
      database = await createTestDatabase(engine, "queue.sqlite");
      db = database.db;
      requests = 0;
      releaseDelivery = null;
    });
    afterEach(() => database.dispose());

    it("exit 0 cancelled, 3 when the job already ended, 4 when unknown; stats and dead --reason cancelled show it", async () => {
      await verq("jobs", "enqueue", "--db", db, "--id", "a", "--payload", "{}");
      const cancelled = await verq("jobs", "cancel", "a", "--db", db, "--note", "OPS-1", "--json");
      expect(cancelled.code).toBe(0);
      expect(json(cancelled.out)).toMatchObject({
        cancelled: true,
        jobId: "a",
        state: "pending",
        note: "OPS-1",
        previousToken: 0,
      });
      const human = await verq("jobs", "cancel", "a", "--db", db, "--note", "OPS-2");
      expect([human.code, human.out.trim()]).toEqual([
        3,
        "refused: a is dead (not-cancellable); only a pending or leased job can be cancelled",
      ]);
      const again = await verq("jobs", "cancel", "a", "--db", db, "--note", "OPS-2", "--json");
      expect([again.code, json(again.out)]).toEqual([
        3,
        { cancelled: false, jobId: "a", refusal: "not-cancellable", state: "dead" },
      ]);
      const unknown = await verq("jobs", "cancel", "nope", "--db", db, "--note", "OPS-1");
      expect(unknown.code).toBe(4);
      expect(unknown.err).toContain("verq: VERQ_UNKNOWN_JOB:");
      const dead = JSON.parse((await verq("jobs", "dead", "--db", db, "--reason", "cancelled", "--json")).out) as unknown[];
      expect(dead).toEqual([expect.objectContaining({ id: "a", reason: "cancelled" })]);
      const stats = json((await verq("jobs", "stats", "--db", db, "--json")).out) as { dead: { byReason: object } };
      expect(stats.dead.byReason).toMatchObject({ cancelled: { count: 1, ratio: 1 } });
      expect((await verq("jobs", "stats", "--db", db)).out).toContain("cancelled=1 (100.0%)");
    });

    it("a bad note, a bad id or no --note is a usage error (exit 2) and changes nothing", async () => {
      await verq("jobs", "enqueue", "--db", db, "--id", "b", "--payload", "{}");
      const before = (await verq("jobs", "show", "b", "--db", db, "--json")).out;
      for (const [args, code] of [
        [["jobs", "cancel", "b", "--db", db, "--note", "fixed it"], "VERQ_INVALID_NOTE"],
        [["jobs", "cancel", "b", "--db", db, "--note", ""], "VERQ_INVALID_NOTE"],
        [["jobs", "cancel", "b", "--db", db, "--note", "x".repeat(65)], "VERQ_INVALID_NOTE"],
        [["jobs", "cancel", "x".repeat(300), "--db", db, "--note", "OPS-1"], "VERQ_INVALID_ID"],
      ] as const) {
        const run = await verq(...args);
        expect([run.code, run.err]).toEqual([2, expect.stringContaining(`verq: ${code}:`)]);
      }
      expect((await verq("jobs", "cancel", "b", "--db", db)).code).toBe(2);
      expect((await verq("jobs", "show", "b", "--db", db, "--json")).out).toBe(before);
    });

    it("a job cancelled while a real `verq jobs work` process delivers it: the worker's finish is refused, the job stays cancelled", async () => {
      await verq("jobs", "enqueue", "--db", db, "--id", "slow", "--payload", '{"n":1}');
      const worker = spawnVerq(["jobs", "work", "--db", db, "--target", target, "--once", "--owner", "w1", "--json"]);
      let stdout = "";
      let stderr = "";
      worker.stdout?.on("data", (c: Buffer) => (stdout += c.toString()));
      worker.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
      const exited = new Promise<number | null>((resolve) => worker.once("close", resolve));
      await until("the delivery", () => releaseDelivery !== null);
      const cancel = await verq("jobs", "cancel", "slow", "--db", db, "--note", "INC#42", "--json");
      expect(json(cancel.out)).toMatchObject({ cancelled: true, state: "leased", previousToken: 1 });
      releaseDelivery?.();
      expect(await exited, stderr).toBe(0);
      expect(json(stdout)).toMatchObject({ status: "finished", id: "slow", token: 1, outcome: "ok", accepted: false });
      expect(requests).toBe(1);
      const show = json((await verq("jobs", "show", "slow", "--db", db, "--json")).out) as { events: { type: string }[] };
      expect(show).toMatchObject({ state: "dead", reason: "cancelled", token: 1 });
      expect(show.events.map((e) => e.type)).toEqual(["job.enqueued", "job.claimed", "job.cancelled"]);
      expect(json((await verq("jobs", "stats", "--db", db, "--json")).out)).toMatchObject({ staleFinishesRefused: 1 });
    });
  });
}
