import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import { json, verq } from "../support/run-cli.ts";

let server: Server;
let target: string;
const received: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    received.push(String(req.headers["idempotency-key"]));
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}'));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  target = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`verq queues, --queue and --priority [${engine}]`, () => {
    let database: TestDatabase;
    let db: string;
    beforeEach(async () => {
      database = await createTestDatabase(engine, "queue.sqlite");
      db = database.db;
      received.length = 0;
    });
    afterEach(() => database.dispose());

    const enqueue = (id: string, ...more: string[]) => verq("jobs", "enqueue", "--db", db, "--id", id, "--payload", "1", ...more);

    it("enqueue --queue --priority, work --queue claims only those queues by priority, stats --json has a queues object", async () => {
      expect((await enqueue("low", "--queue", "mail", "--priority", "-1000")).code).toBe(0);
      const high = await enqueue("high", "--queue", "mail", "--priority", "1000", "--json");
      expect(json(high.out)).toMatchObject({ created: true, job: { queue: "mail", priority: 1000 } });
      expect((await enqueue("sms-1", "--queue", "sms")).code).toBe(0);
      expect((await enqueue("plain")).code).toBe(0);
      const work = await verq(
        "jobs",
        "work",
        "--db",
        db,
        "--target",
        target,
        "--queue",
        "mail,sms",
        "--exit-when-idle",
        "--poll",
        "1ms",
      );
      expect(work.code, work.err).toBe(0);
      expect(received).toEqual(["high", "sms-1", "low"]);
      const stats = json((await verq("jobs", "stats", "--db", db, "--json")).out);
      expect(stats.queues).toEqual({
        default: { byState: { pending: 1, leased: 0, done: 0, dead: 0 }, leased: 0, maxLeased: null },
        mail: { byState: { pending: 0, leased: 0, done: 2, dead: 0 }, leased: 0, maxLeased: null },
        sms: { byState: { pending: 0, leased: 0, done: 1, dead: 0 }, leased: 0, maxLeased: null },
      });
      const human = await verq("jobs", "stats", "--db", db, "--queue", "mail");
      expect(human.out).toContain("queue mail: pending=0 leased=0/unlimited done=2 dead=0\n");
      expect(human.out).not.toContain("queue sms");
    });

    it("queues limit NAME --max-leased N holds a worker to N in flight; the same limit again is unchanged; --none removes it", async () => {
      const set = await verq("queues", "limit", "mail", "--db", db, "--max-leased", "1", "--json");
      expect([set.code, json(set.out)]).toEqual([0, { queue: "mail", maxLeased: 1, changed: true, version: 1 }]);
      const again = await verq("queues", "limit", "mail", "--db", db, "--max-leased", "1");
      expect([again.code, again.out]).toEqual([0, "queue mail: at most 1 leased (unchanged)\n"]);
      for (const id of ["m-1", "m-2", "m-3"]) await enqueue(id, "--queue", "mail");
      const work = await verq(
        "jobs",
        "work",
        "--db",
        db,
        "--target",
        target,
        "--queue",
        "mail",
        "--concurrency",
        "3",
        "--exit-when-idle",
        "--poll",
        "1ms",
        "--json",
      );
      expect(work.code, work.err).toBe(0);
      expect(received).toEqual(["m-1", "m-2", "m-3"]);
      const stats = json((await verq("jobs", "stats", "--db", db, "--queue", "mail", "--json")).out);
      expect(stats.queues).toEqual({ mail: { byState: { pending: 0, leased: 0, done: 3, dead: 0 }, leased: 0, maxLeased: 1 } });
      const removed = await verq("queues", "limit", "mail", "--db", db, "--none");
      expect([removed.code, removed.out]).toEqual([0, "queue mail: unlimited\n"]);
    });

    it("enqueue --from takes queue and priority per NDJSON line; a bad one is named by its line", async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "verq-queues-"));
      try {
        const file = path.join(dir, "jobs.ndjson");
        writeFileSync(file, '{"id":"a","payload":1,"queue":"mail","priority":-3}\n{"id":"b","payload":2}\n');
        expect((await verq("jobs", "enqueue", "--db", db, "--from", file)).code).toBe(0);
        const a = json((await verq("jobs", "show", "a", "--db", db, "--json")).out);
        expect(a).toMatchObject({ id: "a", queue: "mail", priority: -3 });
        writeFileSync(file, '{"id":"c","payload":1}\n{"id":"d","payload":1,"priority":5000}\n');
        const bad = await verq("jobs", "enqueue", "--db", db, "--from", file);
        expect([bad.code, bad.err]).toEqual([2, expect.stringContaining("line 2: VERQ_INVALID_ARGUMENT")]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("bad options exit 2 and change nothing, before the store is opened", async () => {
      await database.dispose();
      for (const args of [
        ["queues", "limit", "mail", "--db", db, "--max-leased", "0"],
        ["queues", "limit", "mail", "--db", db, "--max-leased", "1000001"],
        ["queues", "limit", "mail", "--db", db, "--max-leased", "-1"],
        ["queues", "limit", "mail", "--db", db],
        ["queues", "limit", "mail", "--db", db, "--max-leased", "2", "--none"],
        ["queues", "limit", "a\u0007b", "--db", db, "--max-leased", "2"],
        ["jobs", "enqueue", "--db", db, "--id", "x", "--payload", "1", "--priority", "1001"],
        ["jobs", "enqueue", "--db", db, "--id", "x", "--payload", "1", "--priority", "-1001"],
        ["jobs", "enqueue", "--db", db, "--id", "x", "--payload", "1", "--priority", "1.5"],
        ["jobs", "enqueue", "--db", db, "--id", "x", "--payload", "1", "--queue", ""],
        ["jobs", "work", "--db", db, "--target", target, "--queue", "a,,b", "--once"],
        ["jobs", "stats", "--db", db, "--queue", ""],
      ]) {
        const run = await verq(...args);
        expect(run.code, `${args.join(" ")}: ${run.err}`).toBe(2);
      }
      if (engine === "sqlite") expect(existsSync(db)).toBe(false);
      const json2 = await verq("queues", "limit", "mail", "--db", db, "--max-leased", "0", "--json");
      expect(json(json2.out)).toMatchObject({ error: { code: "VERQ_INVALID_ARGUMENT" } });
    });
  });
}
