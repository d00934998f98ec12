import { ManualClock, SCHEDULE_STREAM } from "@verq/core";
import { JobQueue, Schedules, checkStore, formatFinding } from "@verq/store";
import { ENGINES, engineAvailable } from "@verq/testing";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { freshStores } from "../helpers/fresh-store.ts";
import { plantEvent } from "../helpers/plant.ts";

const T = Date.parse("2024-01-01T10:00:00.000Z");

for (const engine of ENGINES) {
  describe.skipIf(!(await engineAvailable(engine)))(`[${engine}] verq check audits schedules`, () => {
    const stores = freshStores();

    it("a store with schedules that fired is clean; a tampered row, an orphan row and a slot recorded twice are found", async () => {
      const { store } = await stores.open(engine);
      const clock = new ManualClock(T - 1);
      const schedules = new Schedules(store, new JobQueue(store, { clock }), { clock });
      await schedules.schedule("hourly", { cron: "0 * * * *", payload: { r: 1 } });
      await schedules.schedule("gone", { cron: "@daily" });
      await schedules.remove("gone");
      clock.advance(1);
      expect(await schedules.runDue()).toHaveLength(1);
      const clean = await checkStore(store);
      expect(clean.findings.map(formatFinding)).toEqual([]);
      expect(clean.checked.byStreamType[SCHEDULE_STREAM]).toEqual({ streams: 2, events: 4 });

      await sql`update schedules set last_slot = 5 where name = 'hourly'`.execute(store.db);
      await sql`insert into schedules select 'ghost', state, cron, timezone, payload, queue, since, last_slot, fired, updated_at, version from schedules where name = 'gone'`.execute(
        store.db,
      );
      await plantEvent(store, {
        streamType: SCHEDULE_STREAM,
        streamId: "gone",
        version: 3,
        type: "schedule.fired",
        data: { slot: 0, jobId: "schedule:gone:x", firstMissed: null, at: T },
      });
      await plantEvent(store, {
        streamType: SCHEDULE_STREAM,
        streamId: "gone",
        version: 4,
        type: "schedule.fired",
        data: { slot: 0, jobId: "schedule:gone:x", firstMissed: null, at: T },
      });
      const found = (await checkStore(store)).findings.map((f) => [f.code, f.stream]);
      expect(found).toEqual(
        expect.arrayContaining([
          ["PROJECTION_MISMATCH", "schedule/hourly"],
          ["PROJECTION_ORPHAN", "schedule/ghost"],
          ["EVENT_INVALID", "schedule/gone"],
        ]),
      );
    });
  });
}
