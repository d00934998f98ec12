import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";
import { leftBehind } from "../support/left-behind.ts";
import { json, verq } from "../support/run-cli.ts";

let server: Server;
let target: string;
let reply = '{"ok":true}';
let delayMs = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end(reply), delayMs));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  target = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    // `db` is what --db takes: a SQLite file, or a PostgreSQL URL whose search path is the test's own schema.
    let database: TestDatabase;
    let db: string;
    beforeEach(async () => {
      database = await createTestDatabase(engine, "queue.sqlite");
      db = database.db;
      reply = '{"ok":true}';
      delayMs = 0;
    });
    afterEach(() => database.dispose());

    describe("verq jobs", () => {
      it("enqueue, work --once, show --json and stats --json", async () => {
        expect(
          (await verq("jobs", "enqueue", "--db", db, "--id", "a", "--payload", '{"quantity":7}', "--max-attempts", "3")).code,
        ).toBe(0);
        const again = await verq("jobs", "enqueue", "--db", db, "--id", "a", "--payload", '{"quantity":7}', "--json");
        expect(json(again.out)).toMatchObject({ created: false });
        const work = await verq("jobs", "work", "--db", db, "--target", target, "--once", "--owner", "w1", "--json");
        expect(work.code).toBe(0);
        expect(json(work.out)).toMatchObject({
          status: "finished",
          id: "a",
          token: 1,
          outcome: "ok",
          accepted: true,
          kind: null,
          failure: null,
        });
        const show = json((await verq("jobs", "show", "a", "--db", db, "--json")).out);
        for (const key of [
          "id",
          "state",
          "token",
          "attempts",
          "maxAttempts",
          "owner",
          "leaseUntil",
          "deadline",
          "reason",
          "payload",
          "events",
        ]) {
          expect(show).toHaveProperty(key);
        }
        expect(show).toMatchObject({
          id: "a",
          state: "done",
          token: 1,
          attempts: 1,
          maxAttempts: 3,
          owner: null,
          leaseUntil: null,
          reason: null,
          payload: { quantity: 7 },
        });
        expect((show.events as { type: string }[]).map((e) => e.type)).toEqual(["job.enqueued", "job.claimed", "job.completed"]);
        const stats = json((await verq("jobs", "stats", "--db", db, "--json")).out);
        expect(stats).toMatchObject({
          byState: { pending: 0, leased: 0, done: 1, dead: 0 },
          dead: { count: 0, oldest: null, byReason: { permanent: { count: 0, ratio: 0 } } },
          lastRedrive: null,
          leaseExpiries: 0,
          staleFinishesRefused: 0,
        });
        const human = await verq("jobs", "show", "a", "--db", db);
        expect(human.out).toContain("job.claimed token=1 owner=w1");
      });

      it("work --once exits 0 when nothing is due and 1 on a BadAck, leaving the job leased", async () => {
        const idle = await verq("jobs", "work", "--db", db, "--target", target, "--once", "--json");
        expect([idle.code, json(idle.out)]).toEqual([0, { status: "idle" }]);
        await verq("jobs", "enqueue", "--db", db, "--id", "b", "--payload", "{}");
        reply = '{"ok":"yes"}';
        const bad = await verq("jobs", "work", "--db", db, "--target", target, "--once");
        // The failure is shown and recorded on the job, never hidden (W1).
        expect([bad.code, bad.out]).toEqual([
          1,
          "b token=1 failed failure=BadAck/VERQ_BAD_ACK recorded=true; the job stays leased until its lease expires\n",
        ]);
        expect(bad.err).toContain("verq: VERQ_BAD_ACK:");
        expect(json((await verq("jobs", "show", "b", "--db", db, "--json")).out)).toMatchObject({
          state: "leased",
          token: 1,
          lastFailure: { category: "bad-ack", errorClass: "BadAck", code: "VERQ_BAD_ACK", attempt: 1, token: 1 },
        });
      });

      it("finish exits 0 when accepted and 3 when refused; dead, redrive and their refusals", async () => {
        await verq("jobs", "enqueue", "--db", db, "--id", "c", "--payload", "{}", "--max-attempts", "1");
        reply = "{}";
        await verq("jobs", "work", "--db", db, "--target", target, "--once");
        expect((await verq("jobs", "finish", "c", "--db", db, "--token", "2", "--outcome", "ok")).code).toBe(3);
        expect((await verq("jobs", "finish", "c", "--db", db, "--token", "1", "--outcome", "permanent")).code).toBe(0);
        const dead = json(`{"rows":${(await verq("jobs", "dead", "--db", db, "--json")).out}}`).rows as {
          id: string;
          reason: string;
        }[];
        expect(dead).toEqual([expect.objectContaining({ id: "c", reason: "permanent" })]);
        expect((await verq("jobs", "redrive", "c", "--db", db, "--note", "fixed it")).code).toBe(2);
        const ok = await verq("jobs", "redrive", "c", "--db", db, "--note", "OPS-1", "--json");
        expect(json(ok.out)).toMatchObject({ jobId: "c", note: "OPS-1", previousToken: 1 });
        const notDead = await verq("jobs", "redrive", "c", "--db", db, "--note", "OPS-2");
        expect(notDead.code).toBe(3);
        expect(notDead.err).toContain("VERQ_NOT_DEAD");
        expect(json((await verq("jobs", "stats", "--db", db, "--json")).out)).toMatchObject({
          lastRedrive: { jobId: "c", note: "OPS-1" },
        });
      });

      it("bad input gets a coded error and changes nothing", async () => {
        await verq("jobs", "enqueue", "--db", db, "--id", "d", "--payload", '{"quantity":1}');
        const before = (await verq("jobs", "show", "d", "--db", db, "--json")).out;
        const cases: [string[], number, string][] = [
          [["jobs", "enqueue", "--db", db, "--id", "e", "--payload", "{not json"], 2, "VERQ_INVALID_PAYLOAD"],
          [["jobs", "enqueue", "--db", db, "--id", "d", "--payload", '{"quantity":2}'], 3, "VERQ_ENQUEUE_CONFLICT"],
          [["jobs", "enqueue", "--db", db, "--id", "e", "--payload", "{}", "--deadline", "soon"], 2, "VERQ_INVALID_ARGUMENT"],
          [["jobs", "finish", "nope", "--db", db, "--token", "1", "--outcome", "ok"], 4, "VERQ_UNKNOWN_JOB"],
          [["jobs", "finish", "d", "--db", db, "--token", "x", "--outcome", "ok"], 2, "VERQ_INVALID_ARGUMENT"],
          [["jobs", "finish", "d", "--db", db, "--token", "1", "--outcome", "maybe"], 2, "VERQ_INVALID_ARGUMENT"],
          [["jobs", "show", "nope", "--db", db], 4, "VERQ_UNKNOWN_JOB"],
          [["jobs", "work", "--db", db, "--target", target, "--once", "--lease", "0ms"], 2, "VERQ_INVALID_LEASE"],
        ];
        for (const [args, code, text] of cases) {
          const result = await verq(...args);
          expect([args.join(" "), result.code, result.err]).toEqual([args.join(" "), code, expect.stringContaining(text)]);
        }
        expect((await verq("jobs", "show", "d", "--db", db, "--json")).out).toBe(before);
        expect(json((await verq("jobs", "stats", "--db", db, "--json")).out)).toMatchObject({ byState: { pending: 1 } });
        expect((await verq("jobs", "frobnicate")).code).toBe(2);
      });
    });

    describe("verq jobs work (a JobWorker: group commit, heartbeats)", () => {
      it("bad options are usage errors before any claim: exit 2 with a VERQ_ code, the job still pending with attempts 0", async () => {
        await verq("jobs", "enqueue", "--db", db, "--id", "w", "--payload", '{"quantity":1}');
        const before = (await verq("jobs", "show", "w", "--db", db, "--json")).out;
        const work = (...extra: string[]) => ["jobs", "work", "--db", db, "--once", ...extra];
        const cases: [string[], string][] = [
          [work("--target", "not a url"), "VERQ_INVALID_ARGUMENT: --target must be an http(s) URL"],
          [work("--target", "ftp://127.0.0.1/"), "VERQ_INVALID_ARGUMENT: --target must start with http:// or https://"],
          [work("--target", target, "--lease", "30"), "VERQ_INVALID_ARGUMENT: --lease must look like"],
          [work("--target", target, "--lease", "2d"), "VERQ_INVALID_LEASE"],
          [
            work("--target", target, "--concurrency", "0"),
            "VERQ_INVALID_ARGUMENT: --concurrency must be a whole number from 1 to 1000",
          ],
          [work("--target", target, "--concurrency", "two"), "VERQ_INVALID_ARGUMENT: --concurrency"],
          [
            work("--target", target, "--batch-size", "0"),
            "VERQ_INVALID_ARGUMENT: --batch-size must be a whole number from 1 to 1000",
          ],
          [work("--target", target, "--rounds", "5"), "VERQ_INVALID_ARGUMENT: --rounds must be a whole number from 1 to 4"],
          [work("--target", target, "--poll", "0ms"), "VERQ_INVALID_ARGUMENT: --poll must be at least 1ms"],
          [work("--target", target, "--timeout", "0ms"), "VERQ_INVALID_ARGUMENT: --timeout must be at least 1ms"],
          [work("--target", target, "--timeout", "30d"), "VERQ_INVALID_ARGUMENT: --timeout must be at most"],
          [work("--target", target, "--owner", "tab\there"), "VERQ_INVALID_ARGUMENT: --owner"],
        ];
        for (const [args, text] of cases) {
          const result = await verq(...args);
          expect([args.join(" "), result.code, result.out, result.err]).toEqual([
            args.join(" "),
            2,
            "",
            expect.stringContaining(text),
          ]);
        }
        const jsonError = await verq(...work("--target", "not a url", "--json"));
        expect([jsonError.code, json(jsonError.out)]).toEqual([
          2,
          { error: { code: "VERQ_INVALID_ARGUMENT", message: expect.stringContaining("--target") as unknown } },
        ]);
        const after = json((await verq("jobs", "show", "w", "--db", db, "--json")).out);
        expect(after).toMatchObject({ state: "pending", attempts: 0, token: 0 });
        expect(JSON.stringify(after)).toBe(JSON.stringify(json(before)));
      });

      it("a bad option on a database that does not exist yet creates nothing (no SQLite file, no table in the schema)", async () => {
        const result = await verq("jobs", "work", "--db", db, "--target", "not a url", "--once");
        expect(result.code).toBe(2);
        expect(await leftBehind(database)).toEqual([]);
      });

      it("--exit-when-idle --concurrency 4 delivers every job once, one line each, sharing commits, then exits 0", async () => {
        const ids = Array.from({ length: 12 }, (_, i) => `many-${String(i).padStart(2, "0")}`);
        for (const id of ids) await verq("jobs", "enqueue", "--db", db, "--id", id, "--payload", "{}");
        const run = await verq(
          "jobs",
          "work",
          "--db",
          db,
          "--target",
          target,
          "--exit-when-idle",
          "--concurrency",
          "4",
          "--owner",
          "pool",
          "--json",
        );
        expect(run.code).toBe(0);
        const lines = run.out.trim().split("\n").map(json);
        expect(lines.map((l) => l.id).sort()).toEqual(ids);
        expect(lines.every((l) => l.status === "finished" && l.token === 1 && l.outcome === "ok" && l.accepted === true)).toBe(
          true,
        );
        expect(json((await verq("jobs", "stats", "--db", db, "--json")).out)).toMatchObject({
          byState: { done: 12, pending: 0, leased: 0 },
        });
        const shown = json((await verq("jobs", "show", "many-00", "--db", db, "--json")).out) as {
          events: { type: string; data: { owner?: string } }[];
        };
        expect(shown.events.find((e) => e.type === "job.claimed")?.data.owner).toBe("pool");
      });

      it("--batch-size claims that many jobs in one transaction, however few are in flight", async () => {
        const ids = Array.from({ length: 8 }, (_, i) => `batch-${i}`);
        for (const id of ids) await verq("jobs", "enqueue", "--db", db, "--id", id, "--payload", "{}");
        delayMs = 20;
        const args = ["--target", target, "--exit-when-idle", "--concurrency", "1", "--batch-size", "6", "--rounds", "1"];
        const run = await verq("jobs", "work", "--db", db, ...args, "--json");
        expect(run.code, run.err).toBe(0);
        expect(
          run.out
            .trim()
            .split("\n")
            .map(json)
            .map((l) => l.id)
            .sort(),
        ).toEqual(ids);
        const claimedAt = async (id: string) => {
          const shown = json((await verq("jobs", "show", id, "--db", db, "--json")).out) as {
            events: { type: string; data: { at?: number } }[];
          };
          return shown.events.find((e) => e.type === "job.claimed")?.data.at;
        };
        // One claim transaction reads the clock once: the first six share it, though each was
        // delivered 20 ms after the one before.
        const first = await Promise.all(ids.slice(0, 6).map(claimedAt));
        expect(new Set(first).size).toBe(1);
      });

      it("--exit-when-idle exits 1 when a send left its job leased (BadAck), after working the rest", async () => {
        await verq("jobs", "enqueue", "--db", db, "--id", "only", "--payload", "{}");
        reply = "{}";
        const run = await verq("jobs", "work", "--db", db, "--target", target, "--exit-when-idle", "--lease", "1h");
        expect(run.code).toBe(1);
        expect(run.err).toContain("VERQ_BAD_ACK");
        expect(json((await verq("jobs", "show", "only", "--db", db, "--json")).out)).toMatchObject({ state: "leased", token: 1 });
      });

      it("a delivery longer than the lease keeps the lease by heartbeats: done with token 1, leaseExtended in the timeline", async () => {
        await verq("jobs", "enqueue", "--db", db, "--id", "slow", "--payload", "{}");
        // Heartbeats every third of the lease: a second of lease leaves room for a loaded machine.
        delayMs = 2_400;
        const run = await verq("jobs", "work", "--db", db, "--target", target, "--once", "--lease", "1s", "--json");
        expect([run.code, run.out.trim().split("\n").map(json)]).toMatchObject([
          0,
          [{ status: "finished", id: "slow", token: 1, outcome: "ok", accepted: true }],
        ]);
        const shown = json((await verq("jobs", "show", "slow", "--db", db, "--json")).out) as { events: { type: string }[] };
        const types = shown.events.map((e) => e.type);
        expect(types.filter((t) => t === "job.leaseExtended").length).toBeGreaterThanOrEqual(2);
        expect(types.filter((t) => t === "job.claimed")).toEqual(["job.claimed"]);
        expect(types.at(-1)).toBe("job.completed");
      });
    });
  });
}
