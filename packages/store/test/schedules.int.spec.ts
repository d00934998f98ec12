import { JOB_STREAM, ManualClock, SCHEDULE_STREAM, isVerqError } from "@verq/core";
import { ENGINES, engineAvailable } from "@verq/testing";
import { describe, expect, it } from "vitest";
import { JobQueue, Schedules, readAllEvents, type VerqStore } from "../src/index.ts";
import { freshStores } from "./helpers/fresh-store.ts";

const T = Date.parse("2024-01-01T10:00:00.000Z");
const HOUR = 3_600_000;

const scheduleEventsOf = async (store: VerqStore) =>
  (await readAllEvents(store.db, SCHEDULE_STREAM)).map((e) => ({ id: e.streamId, v: e.version, type: e.type, data: e.data }));
const jobIdsOf = async (store: VerqStore) =>
  (await readAllEvents(store.db, JOB_STREAM)).filter((e) => e.type === "job.enqueued").map((e) => e.streamId);

function setup(store: VerqStore, at = T - HOUR / 2) {
  const clock = new ManualClock(at);
  const queue = new JobQueue(store, { clock });
  return { clock, queue, schedules: new Schedules(store, queue, { clock }) };
}

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] schedules`, () => {
    const stores = freshStores();

    it("adds, lists, updates, removes; the same definition again changes nothing", async () => {
      const { store } = await stores.open(engine);
      const { clock, schedules } = setup(store);
      const first = await schedules.schedule("hourly", { cron: "0 * * * *", payload: { b: 1, a: 2 } });
      expect(first).toMatchObject({
        changed: true,
        schedule: {
          name: "hourly",
          state: "active",
          timezone: "UTC",
          queue: "default",
          payload: { a: 2, b: 1 },
          since: T - HOUR / 2,
        },
      });
      expect((await schedules.schedule("hourly", { cron: "0 * * * *", payload: { a: 2, b: 1 } })).changed).toBe(false);
      clock.advance(1);
      const updated = await schedules.schedule("hourly", { cron: "30 * * * *", timezone: "Europe/Berlin", queue: "reports" });
      expect(updated.schedule).toMatchObject({
        cron: "30 * * * *",
        timezone: "Europe/Berlin",
        queue: "reports",
        payload: null,
        version: 2,
      });
      await schedules.schedule("daily", { cron: "@daily" });
      expect((await schedules.list()).map((s) => s.name)).toEqual(["daily", "hourly"]);
      expect(await schedules.remove("daily")).toBe(true);
      expect(await schedules.remove("daily")).toBe(false);
      expect(await schedules.remove("never-added")).toBe(false);
      expect((await schedules.list()).map((s) => s.name)).toEqual(["hourly"]);
      expect((await schedules.list({ all: true })).map((s) => [s.name, s.state])).toEqual([
        ["daily", "removed"],
        ["hourly", "active"],
      ]);
      expect(await schedules.get("never-added")).toBeNull();
      expect((await scheduleEventsOf(store)).map((e) => [e.id, e.v, e.type])).toEqual([
        ["hourly", 1, "schedule.added"],
        ["hourly", 2, "schedule.updated"],
        ["daily", 1, "schedule.added"],
        ["daily", 2, "schedule.removed"],
      ]);
    });

    it("refuses a bad name, cron expression, timezone, queue or payload with its code, writing nothing", async () => {
      const { store } = await stores.open(engine);
      const { schedules } = setup(store);
      const codeOf = async (work: () => Promise<unknown>) => {
        try {
          await work();
          return "accepted";
        } catch (error) {
          return isVerqError(error) ? error.code : String(error);
        }
      };
      expect(await codeOf(() => schedules.schedule("bad name", { cron: "* * * * *" }))).toBe("VERQ_INVALID_ARGUMENT");
      expect(await codeOf(() => schedules.schedule("a", { cron: "* * * *" }))).toBe("VERQ_INVALID_CRON");
      expect(await codeOf(() => schedules.schedule("a", { cron: "0 0 30 2 *" }))).toBe("VERQ_INVALID_CRON");
      expect(await codeOf(() => schedules.schedule("a", { cron: "* * * * *", timezone: "Mars/Olympus" }))).toBe(
        "VERQ_INVALID_TIMEZONE",
      );
      // The queue rule of enqueue: 1 to 256 printable characters.
      expect(await codeOf(() => schedules.schedule("a", { cron: "* * * * *", queue: "q".repeat(257) }))).toBe(
        "VERQ_INVALID_ARGUMENT",
      );
      expect(await codeOf(() => schedules.schedule("a", { cron: "* * * * *", payload: { n: Number.NaN } }))).toBe(
        "VERQ_INVALID_PAYLOAD",
      );
      expect(await scheduleEventsOf(store)).toEqual([]);
      expect(await schedules.list({ all: true })).toEqual([]);
    });

    it("enqueues a slot exactly when due (not 1 ms before), once, as schedule:<name>:<slot>", async () => {
      const { store } = await stores.open(engine);
      const { clock, queue, schedules } = setup(store);
      await schedules.schedule("hourly", { cron: "0 * * * *", payload: { report: "sales" } });
      clock.advance(HOUR / 2 - 1); // T - 1 ms
      expect(await schedules.runDue()).toEqual([]);
      clock.advance(1); // T
      expect(await schedules.runDue()).toEqual([
        { name: "hourly", slot: T, jobId: "schedule:hourly:2024-01-01T10:00:00.000Z", created: true, firstMissed: null },
      ]);
      expect(await schedules.runDue()).toEqual([]);
      // Another scheduler on the same store finds the slot recorded.
      expect(await new Schedules(store, queue, { clock }).runDue()).toEqual([]);
      expect(await queue.get("schedule:hourly:2024-01-01T10:00:00.000Z")).toMatchObject({
        state: "pending",
        payload: { report: "sales" },
      });
      expect(await jobIdsOf(store)).toEqual(["schedule:hourly:2024-01-01T10:00:00.000Z"]);
      expect(await schedules.get("hourly")).toMatchObject({ lastSlot: T, fired: 1 });
    });

    it("after downtime enqueues only the latest missed slot and records the first one skipped", async () => {
      const { store } = await stores.open(engine);
      const { clock, schedules } = setup(store);
      await schedules.schedule("hourly", { cron: "0 * * * *" });
      clock.advance(HOUR / 2 + 3 * HOUR + 5); // slots T, T+1h, T+2h, T+3h are due
      const fired = await schedules.runDue();
      expect(fired).toEqual([
        { name: "hourly", slot: T + 3 * HOUR, jobId: "schedule:hourly:2024-01-01T13:00:00.000Z", created: true, firstMissed: T },
      ]);
      expect((await scheduleEventsOf(store)).at(-1)).toMatchObject({
        type: "schedule.fired",
        data: { slot: T + 3 * HOUR, firstMissed: T, jobId: "schedule:hourly:2024-01-01T13:00:00.000Z" },
      });
      clock.advance(HOUR);
      expect((await schedules.runDue()).map((f) => [f.slot, f.firstMissed])).toEqual([[T + 4 * HOUR, null]]);
      expect(await jobIdsOf(store)).toHaveLength(2);
    });

    it("a removed schedule enqueues nothing; added again, its slots count from then", async () => {
      const { store } = await stores.open(engine);
      const { clock, schedules } = setup(store);
      await schedules.schedule("hourly", { cron: "0 * * * *" });
      await schedules.remove("hourly");
      clock.advance(HOUR);
      expect(await schedules.runDue()).toEqual([]);
      await schedules.schedule("hourly", { cron: "0 * * * *" }); // at T + 30 min
      expect(await schedules.runDue()).toEqual([]);
      clock.advance(HOUR / 2);
      expect((await schedules.runDue()).map((f) => f.slot)).toEqual([T + HOUR]);
    });

    it("five schedulers running at once enqueue each slot once", async () => {
      const { store } = await stores.open(engine);
      const { clock, queue, schedules } = setup(store);
      await schedules.schedule("every-minute", { cron: "* * * * *" });
      await schedules.schedule("hourly", { cron: "0 * * * *" });
      const schedulers = Array.from({ length: 5 }, () => new Schedules(store, queue, { clock }));
      for (let round = 0; round < 4; round++) {
        clock.advance(HOUR / 2);
        const fired = (await Promise.all(schedulers.map((s) => s.runDue()))).flat();
        const slots = fired.map((f) => `${f.name}@${f.slot}`);
        expect(new Set(slots).size).toBe(slots.length);
      }
      const ids = await jobIdsOf(store);
      expect(new Set(ids).size).toBe(ids.length);
      const fired = (await scheduleEventsOf(store)).filter((e) => e.type === "schedule.fired");
      expect(fired.map((e) => (e.data as { jobId: string }).jobId).sort()).toEqual([...ids].sort());
      // One fire per round for the minute schedule; the hourly one at T and T + 1h.
      expect(fired.filter((e) => e.id === "every-minute")).toHaveLength(4);
      expect(fired.filter((e) => e.id === "hourly").map((e) => (e.data as { slot: number }).slot)).toEqual([T, T + HOUR]);
      // The projection is the fold of the log: a rebuild gives the very same rows.
      const live = await schedules.list({ all: true });
      expect((await store.rebuildProjections()).schedules).toBe(2);
      expect(await schedules.list({ all: true })).toEqual(live);
    });
  });
}
