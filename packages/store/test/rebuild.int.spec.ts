import { ManualClock, classifyCoreCall } from "@verq/core";
import { FileLedger, GuidLedger, type VerqStore } from "@verq/store";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { projectionRows, tableRows } from "./helpers/snapshot.ts";
import { buildEveryState, deterministicQueue, runRandomWorkload } from "./helpers/workload.ts";
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from "@verq/testing";

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}]`, () => {
    const open: { store: VerqStore; database: TestDatabase }[] = [];
    afterEach(async () => {
      for (const { store, database } of open.splice(0)) {
        await store.close();
        await database.dispose();
      }
    });

    async function openTemp(name: string): Promise<VerqStore> {
      const database = await createTestDatabase(engine, name);
      const store = await database.open();
      open.push({ store, database });
      return store;
    }

    async function count(store: VerqStore, table: "events" | "jobs"): Promise<number> {
      const row = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(store.db);
      return Number(row.rows[0]?.n);
    }

    describe("rebuildProjections: folding the event log again gives exactly the live projections", () => {
      it.each([1, 2, 3])(
        "after every state and a random workload (seed %i), jobs and redrives rows are identical",
        async (seed) => {
          const store = await openTemp(`seed-${seed}.sqlite`);
          const clock = new ManualClock();
          const queue = deterministicQueue(store, clock);
          await buildEveryState(queue, clock);
          await runRandomWorkload(queue, clock, seed, 600);
          const live = await projectionRows(store);
          const events = await tableRows(store, "events");
          expect(live.redrives.length).toBeGreaterThan(2);
          expect(new Set(live.jobs.map((j) => (j as { state: string }).state))).toEqual(
            new Set(["pending", "leased", "done", "dead"]),
          );

          const result = await store.rebuildProjections();
          expect(result).toEqual({ jobs: live.jobs.length, ledgerEntries: 0, messages: 0, schedules: 0, events: events.length });
          expect(await projectionRows(store)).toEqual(live);
          // The log itself is untouched, and a second rebuild is a fixpoint.
          expect(await tableRows(store, "events")).toEqual(events);
          await store.rebuildProjections();
          expect(await projectionRows(store)).toEqual(live);
        },
      );

      it("is invisible: a store rebuilt midway ends byte-identical to a twin that never was", async () => {
        const rebuilt = await openTemp("rebuilt.sqlite");
        const twin = await openTemp("twin.sqlite");
        const clocks = [new ManualClock(), new ManualClock()] as const;
        const queues = [deterministicQueue(rebuilt, clocks[0]), deterministicQueue(twin, clocks[1])] as const;
        for (const [i, queue] of queues.entries()) await runRandomWorkload(queue, clocks[i]!, 42, 300);
        await rebuilt.rebuildProjections();
        for (const [i, queue] of queues.entries()) await runRandomWorkload(queue, clocks[i]!, 43, 300);
        expect(await projectionRows(rebuilt)).toEqual(await projectionRows(twin));
        expect(await tableRows(rebuilt, "events")).toEqual(await tableRows(twin, "events"));
      });

      it("keeps odd but valid payloads byte for byte (J1: the business payload is never altered)", async () => {
        const store = await openTemp("payloads.sqlite");
        const clock = new ManualClock();
        const queue = deterministicQueue(store, clock);
        const payloads: unknown[] = [
          JSON.parse('{"__proto__": {"quantity": 7}, "": "", "10": 1, "9": 2}'),
          { big: 2 ** 53 + 2, negativeZero: -0, tiny: 5e-324, huge: 1.7976931348623157e308, exp: 1e21 },
          { text: "lone \ud800 surrogate, \u2028 separator, NUL \u0000, emoji 🙂", nested: [[[]], {}, [null, true, false]] },
          "just a string",
          0,
          null,
        ];
        for (const [i, payload] of payloads.entries()) {
          await queue.enqueue({ id: `odd-${i}`, payload });
          const job = await queue.claim("w1");
          await queue.finish(job!.id, job!.token, i % 2 === 0 ? "ok" : "permanent");
        }
        const live = await projectionRows(store);
        await store.rebuildProjections();
        expect(await projectionRows(store)).toEqual(live);
        for (const [i, payload] of payloads.entries()) {
          // Equal to the JSON round trip of what was enqueued (-0 is JSON's 0).
          expect((await queue.get(`odd-${i}`))?.payload).toEqual(JSON.parse(JSON.stringify(payload)));
        }
      });

      it("covers every projection: the GUID ledger and the file queue's messages, processed and duplicate rows too", async () => {
        const store = await openTemp("all-projections.sqlite");
        const clock = new ManualClock();
        await buildEveryState(deterministicQueue(store, clock), clock);
        const ledger = new GuidLedger(store, { clock });
        for (const [i, guid] of ["G-done", "G-unknown", "G-received"].entries()) {
          const request = JSON.stringify({ guid, amount: i + 1 });
          await ledger.receive({ guid, request, fingerprint: `f${i}`, maxAttempts: 3 });
          if (guid === "G-received") continue;
          await ledger.send(guid);
          const answered = guid === "G-done";
          const result = answered
            ? ({ kind: "answered", status: 200, body: JSON.stringify({ guid, code: "0000" }) } as const)
            : ({ kind: "no-answer", reason: "TimeoutError" } as const);
          await ledger.record(guid, 1, classifyCoreCall(guid, result));
          clock.advance(10);
        }
        const files = new FileLedger(store, { clock });
        const verdict = (key: string, file: string) =>
          ({
            kind: "valid",
            key,
            group: "O-1",
            sequence: 1,
            amount: 10,
            message: JSON.stringify({ msg_id: key }),
            file,
          }) as const;
        const settle = (claimId: string, file: string, key: string) =>
          files.settle({ claimId, owner: "1@host", file, recovered: false, errorCopyExists: false, verdict: verdict(key, file) });
        await settle("c1", "a.json", "K1");
        await settle("c2", "b.json", "K1"); // a duplicate of K1
        await settle("c3", "c.json", "K2");
        const tables = ["jobs", "redrives", "ledger", "messages", "processed", "message_duplicates"] as const;
        const before = await Promise.all(tables.map((t) => tableRows(store, t)));
        expect(before.map((rows) => rows.length).every((n) => n > 0)).toBe(true);

        // Lose every projection row: only the event log is left to rebuild them from.
        for (const table of tables) await sql`delete from ${sql.table(table)}`.execute(store.db);
        const result = await store.rebuildProjections();
        expect(result).toMatchObject({ ledgerEntries: 3, messages: 3 });
        expect(await Promise.all(tables.map((t) => tableRows(store, t)))).toEqual(before);
      });

      it("rebuilds an empty store to empty projections", async () => {
        const store = await openTemp("empty.sqlite");
        expect(await store.rebuildProjections()).toEqual({ jobs: 0, ledgerEntries: 0, messages: 0, schedules: 0, events: 0 });
        expect(await projectionRows(store)).toEqual({ jobs: [], redrives: [] });
      });

      it("is all or nothing: a rebuild that fails part-way leaves the live projections as they were", async () => {
        const store = await openTemp("broken.sqlite");
        const clock = new ManualClock();
        const queue = deterministicQueue(store, clock);
        await buildEveryState(queue, clock);
        const live = await projectionRows(store);
        const jobs = await count(store, "jobs");
        // An event this version of verq cannot fold (as a newer version might have written).
        const head = await queue.get("done-1");
        await sql`insert into events (stream_type, stream_id, version, type, data, at_ms)
          values ('job', 'done-1', ${head!.version + 1}, 'job.fromTheFuture', '{"at": 1}', 1)`.execute(store.db);

        await expect(store.rebuildProjections()).rejects.toThrow();
        expect(await projectionRows(store)).toEqual(live);
        expect(await count(store, "jobs")).toBe(jobs);
      });
    });
  });
}
