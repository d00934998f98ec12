import Database from "better-sqlite3";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ManualClock } from "@verq/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JobQueue, type ClaimedJob, type VerqStore } from "../src/index.ts";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";

/**
 * SPEC J8 in one process, with the queue on each engine: a real HTTP receiver on 127.0.0.1 that
 * commits the request id and the inventory effect in one SQLite transaction of its own. Worker A
 * sends and then abandons the job (it "dies": no finish); B reclaims at the lease boundary with
 * token 2 and sends the same id again. The same story with real processes and exit code 73 is
 * the adapters' crash test.
 */
for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    let receiverDb: Database.Database;
    let server: Server;
    let url: string;
    let requests = 0;
    let database: TestDatabase;
    let store: VerqStore;

    beforeEach(async () => {
      receiverDb = new Database(":memory:");
      receiverDb.exec(
        "create table seen (key text primary key); create table inventory (n integer not null); insert into inventory values (0);",
      );
      const apply = receiverDb.transaction((key: string, quantity: number) => {
        const inserted = receiverDb.prepare("insert or ignore into seen (key) values (?)").run(key).changes;
        if (inserted === 1) receiverDb.prepare("update inventory set n = n + ?").run(quantity);
      });
      requests = 0;
      server = createServer((req, res) => {
        let body = "";
        req.on("data", (chunk: Buffer) => (body += chunk.toString()));
        req.on("end", () => {
          requests++;
          const { quantity } = JSON.parse(body) as { quantity: number };
          apply(String(req.headers["idempotency-key"]), quantity);
          res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
        });
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      database = await createTestDatabase(engine);
      store = await database.open();
    });

    afterEach(async () => {
      await store.close();
      await database.dispose();
      await new Promise((resolve) => server.close(resolve));
      receiverDb.close();
    });

    async function send(job: ClaimedJob): Promise<boolean> {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": job.id },
        body: JSON.stringify(job.payload),
      });
      const body = (await res.json()) as { ok?: unknown };
      return res.ok && body.ok === true;
    }

    it("J8: a worker dies after the receiver committed; the reclaim at the boundary sends again; the effect happens once", async () => {
      const clock = new ManualClock();
      const queue = new JobQueue(store, { clock });
      await queue.enqueue({ id: "order-7", payload: { quantity: 7 }, maxAttempts: 3 });

      const a = await queue.claim("worker-A", { leaseMs: 10_000 });
      expect(a?.token).toBe(1);
      expect(await send(a!)).toBe(true); // committed at the receiver; A dies here, before finish

      clock.set(a!.leaseUntil - 1);
      expect(await queue.claim("worker-B", { leaseMs: 10_000 })).toBeNull();
      clock.set(a!.leaseUntil);
      const result = await queue.runOnce("worker-B", send, { leaseMs: 10_000 });
      expect(result).toEqual({ status: "finished", id: "order-7", token: 2, outcome: "ok", accepted: true });

      expect(requests).toBe(2);
      expect(receiverDb.prepare("select n from inventory").pluck().get()).toBe(7);
      expect(await queue.get("order-7")).toMatchObject({ state: "done", token: 2 });
      expect(await queue.finish("order-7", 1, "ok")).toBe(false);
    });
  });
}
