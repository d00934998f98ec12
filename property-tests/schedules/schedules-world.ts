import { JOB_STREAM, ManualClock, type ScheduleDecider } from "@verq/core";
import { JobQueue, Schedules, readAllEvents, type VerqStore } from "@verq/store";
import type { TestDatabase } from "@verq/testing";

/** Minute-aligned start, so that clock steps of whole minutes land exactly on slots. */
export const T0 = Date.parse("2024-01-01T10:00:00.000Z");
const MINUTE = 60_000;

/**
 * The schedules of every run, each with its slots computed here independently of the cron
 * parser (UTC, simple expressions): the latest slot at or before `t`.
 */
export const MODEL_SCHEDULES: readonly {
  readonly name: string;
  readonly cron: string;
  readonly latest: (t: number) => number;
}[] = [
  { name: "every-minute", cron: "* * * * *", latest: (t) => Math.floor(t / MINUTE) * MINUTE },
  {
    name: "every-7",
    cron: "*/7 * * * *",
    latest: (t) => {
      const minute = Math.floor(t / MINUTE) * MINUTE;
      const ofHour = new Date(minute).getUTCMinutes();
      return minute - (ofHour % 7) * MINUTE;
    },
  },
  { name: "hourly", cron: "0 * * * *", latest: (t) => Math.floor(t / (60 * MINUTE)) * (60 * MINUTE) },
];

/** What the model knows of one schedule: slots count from `since`; the slots enqueued, in order. */
export interface ModelSchedule {
  readonly since: number;
  readonly slots: number[];
}

/** The model: the time, and per schedule what the missed-slot policy says must have been enqueued. */
export class SchedulesModel {
  now: number;
  readonly schedules = new Map<string, ModelSchedule>();

  constructor(now: number) {
    this.now = now;
    for (const s of MODEL_SCHEDULES) this.schedules.set(s.name, { since: now, slots: [] });
  }

  /** A scheduler ran at `now`: each schedule's latest slot, if due and newer than its last, is enqueued (only it). */
  runDue(): Map<string, number> {
    const fired = new Map<string, number>();
    for (const s of MODEL_SCHEDULES) {
      const model = this.schedules.get(s.name);
      if (model === undefined) continue;
      const slot = s.latest(this.now);
      const last = model.slots.at(-1);
      if (slot >= model.since && (last === undefined || slot > last)) {
        model.slots.push(slot);
        fired.set(s.name, slot);
      }
    }
    return fired;
  }
}

/**
 * The real side: three schedulers and one clock. On PostgreSQL each scheduler has a store (a
 * connection pool) of its own over one database; on SQLite they share one store, since a second
 * connection in the same thread would wait for the first synchronously (separate processes on one
 * SQLite file are the e2e test's).
 */
export interface SchedulesReal {
  readonly clock: ManualClock;
  readonly stores: readonly VerqStore[];
  readonly schedulers: readonly Schedules[];
}

/** Opens three stores on `database`, a scheduler on each (deciding with `decider`), and adds the model's schedules. */
export async function createSchedulesReal(database: TestDatabase, decider?: ScheduleDecider): Promise<SchedulesReal> {
  const clock = new ManualClock(T0);
  const stores =
    database.schema === null ? [await database.open()] : [await database.open(), await database.open(), await database.open()];
  const schedulers = [0, 1, 2].map((i) => {
    const store = stores[i % stores.length] as VerqStore;
    return new Schedules(store, new JobQueue(store, { clock }), { clock, decider });
  });
  const first = schedulers[0] as Schedules;
  for (const s of MODEL_SCHEDULES) await first.schedule(s.name, { cron: s.cron, payload: { schedule: s.name } });
  return { clock, stores, schedulers };
}

/** The ids of every job enqueued, in log order. */
export async function enqueuedJobIds(store: VerqStore): Promise<string[]> {
  return (await readAllEvents(store.db, JOB_STREAM)).filter((e) => e.type === "job.enqueued").map((e) => e.streamId);
}
