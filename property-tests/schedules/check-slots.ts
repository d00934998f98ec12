import { scheduleJobId } from "@verq/core";
import { enqueuedJobIds, type SchedulesModel, type SchedulesReal } from "./schedules-world.ts";

/**
 * The properties, after every command:
 * - `[slot once]`: no job id is enqueued twice and no slot of a schedule has two jobs (however
 *   many schedulers ran);
 * - `[policy]`: the jobs enqueued are exactly the slots the model's missed-slot policy names
 *   (each run enqueues only the latest due slot, from the schedule's `since`, after its last).
 */
export async function checkSlots(m: SchedulesModel, r: SchedulesReal): Promise<void> {
  const store = r.stores[0];
  if (store === undefined) throw new Error("no store");
  const ids = await enqueuedJobIds(store);
  if (new Set(ids).size !== ids.length) throw new Error(`[slot once] a job id was enqueued twice: ${ids.join(", ")}`);
  const perSlot = new Map<string, number>();
  for (const id of ids) {
    const match = /^schedule:([^:]+):(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)/.exec(id);
    const key = match === null ? id : `${match[1]}@${match[2]}`;
    perSlot.set(key, (perSlot.get(key) ?? 0) + 1);
  }
  for (const [slot, count] of perSlot) if (count > 1) throw new Error(`[slot once] slot ${slot} was enqueued ${count} times`);
  const expected = [...m.schedules].flatMap(([name, s]) => s.slots.map((slot) => scheduleJobId(name, slot)));
  const got = [...ids].sort();
  expected.sort();
  if (JSON.stringify(got) !== JSON.stringify(expected)) {
    throw new Error(
      `[policy] at ${new Date(m.now).toISOString()} the jobs enqueued are ${got.join(", ") || "none"}; expected ${expected.join(", ") || "none"}`,
    );
  }
}
