import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ENGINES, createTestDatabase, engineAvailable, spawnVerq, type TestDatabase } from "@verq/testing";
import { verq } from "../support/run-cli.ts";

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
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] verq schedules`, () => {
    let database: TestDatabase;
    let db: string;
    beforeEach(async () => {
      database = await createTestDatabase(engine, "schedules.sqlite");
      db = database.db;
      received.length = 0;
    });
    afterEach(() => database.dispose());

    it("a bad cron expression, timezone, name, queue or payload is exit 2 and writes nothing", async () => {
      const bad = [
        ["nightly", "--cron", "61 * * * *"],
        ["nightly", "--cron", "* * * *"],
        ["nightly", "--cron", "0 2 * * *", "--timezone", "Mars/Olympus"],
        ["bad name", "--cron", "0 2 * * *"],
        ["nightly", "--cron", "0 2 * * *", "--queue", "q".repeat(257)],
        ["nightly", "--cron", "0 2 * * *", "--payload", "{nope"],
      ];
      const codes = [];
      for (const args of bad) codes.push((await verq("schedules", "add", ...args, "--db", db)).code);
      expect(codes).toEqual([2, 2, 2, 2, 2, 2]);
      const json = await verq("schedules", "add", "nightly", "--db", db, "--cron", "0 2 * *", "--json");
      expect(JSON.parse(json.out)).toMatchObject({ error: { code: "VERQ_INVALID_CRON" } });
      const tz = await verq("schedules", "add", "nightly", "--db", db, "--cron", "0 2 * * *", "--timezone", "Nowhere");
      expect(tz.err).toContain("VERQ_INVALID_TIMEZONE");
      // Checked before the store is opened: not even a SQLite file was created, nor verq's tables
      // in the PostgreSQL schema, so `schedules list`, which only reads, finds no store (exit 4).
      if (engine === "sqlite") expect(existsSync(db)).toBe(false);
      const listed = await verq("schedules", "list", "--db", db, "--json");
      expect(listed.code).toBe(4);
      expect(JSON.parse(listed.out)).toMatchObject({
        error: { code: engine === "sqlite" ? "VERQ_FILE_NOT_FOUND" : "VERQ_STORE_NOT_INITIALIZED" },
      });
    });

    it("add, add again (unchanged), list, remove, remove again (exit 4)", async () => {
      const added = await verq(
        "schedules",
        "add",
        "nightly",
        "--db",
        db,
        "--cron",
        "0 2 * * *",
        "--timezone",
        "Europe/Berlin",
        "--payload",
        '{"report":"sales"}',
        "--json",
      );
      expect(added.code).toBe(0);
      expect(JSON.parse(added.out)).toMatchObject({
        changed: true,
        schedule: {
          name: "nightly",
          state: "active",
          cron: "0 2 * * *",
          timezone: "Europe/Berlin",
          queue: "default",
          payload: { report: "sales" },
          lastSlot: null,
        },
      });
      const again = await verq(
        "schedules",
        "add",
        "nightly",
        "--db",
        db,
        "--cron",
        "0 2 * * *",
        "--timezone",
        "Europe/Berlin",
        "--payload",
        '{"report":"sales"}',
      );
      expect(again.out).toMatch(/^unchanged nightly active/);
      expect((await verq("schedules", "list", "--db", db)).out).toMatch(
        /^nightly active cron="0 2 \* \* \*" tz=Europe\/Berlin queue=default last=none yet fired=0\n$/,
      );
      expect((await verq("schedules", "remove", "nightly", "--db", db)).code).toBe(0);
      const gone = await verq("schedules", "remove", "nightly", "--db", db, "--json");
      expect(gone.code).toBe(4);
      expect(JSON.parse(gone.out)).toEqual({ name: "nightly", removed: false });
      expect((await verq("schedules", "list", "--db", db)).out).toBe("no schedules\n");
      expect(JSON.parse((await verq("schedules", "list", "--db", db, "--all", "--json")).out)).toMatchObject({
        schedules: [{ name: "nightly", state: "removed" }],
      });
    });

    it("jobs work runs the due slot and delivers its job", async () => {
      expect((await verq("schedules", "add", "tick", "--db", db, "--cron", "* * * * * *", "--payload", '{"n":1}')).code).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const work = await verq("jobs", "work", "--db", db, "--target", target, "--once", "--json");
      expect(work.code).toBe(0);
      const lines = work.out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const scheduled = lines.find((l) => l.status === "scheduled");
      expect(scheduled).toMatchObject({ name: "tick", created: true });
      expect(String(scheduled?.jobId)).toMatch(/^schedule:tick:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
      expect(lines.find((l) => l.status === "finished")).toMatchObject({ id: scheduled?.jobId, outcome: "ok", accepted: true });
      expect(received).toEqual([scheduled?.jobId]);
      const listed = JSON.parse((await verq("schedules", "list", "--db", db, "--json")).out) as {
        schedules: { fired: number }[];
      };
      expect(listed.schedules[0]?.fired).toBe(1);
    });

    it(
      "a running jobs work process enqueues and delivers the slots that fall due while it runs",
      { timeout: 60_000 },
      async () => {
        expect((await verq("schedules", "add", "tick", "--db", db, "--cron", "* * * * * *")).code).toBe(0);
        const worker = spawnVerq(["jobs", "work", "--db", db, "--target", target, "--poll", "100ms"]);
        const exited = new Promise<number | null>((resolve) => worker.once("exit", (code) => resolve(code)));
        const deadline = Date.now() + 30_000;
        while (received.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
        worker.kill("SIGTERM");
        expect(await exited).toBe(0);
        expect(received.length).toBeGreaterThanOrEqual(2);
        expect(received.every((id) => /^schedule:tick:/.test(id))).toBe(true);
        expect(new Set(received).size).toBe(received.length);
      },
    );
  });
}
