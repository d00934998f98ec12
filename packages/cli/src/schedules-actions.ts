import { VerqError, checkScheduleDefinition, isValidScheduleName, type Schedule } from "@verq/core";
import { JobQueue, Schedules, type FiredSlot, type VerqStore } from "@verq/store";
import { clockFromEnv } from "./clock-from-env.ts";
import { READ_ONLY, iso, parsePayloadOption, runCommand, withStore, type StoreUse } from "./common.ts";
import { EXIT } from "./exit-codes.ts";
import type { DbOptions } from "./options.ts";
import { emit, type CliContext } from "./output.ts";

/*
 * The actions of `verq schedules …`, loaded by ./schedules-commands.ts when one runs.
 */

/** The options of `verq schedules add`. */
export interface AddScheduleOptions extends DbOptions {
  readonly cron: string;
  readonly timezone: string;
  readonly payload: string;
  readonly queue: string;
}
/** The options of `verq schedules list`. */
export interface ListScheduleOptions extends DbOptions {
  readonly all?: boolean;
}
/** The options of `verq schedules remove`. */
export type RemoveScheduleOptions = DbOptions;
/** The options of `verq schedules run`. */
export type RunSchedulesOptions = DbOptions;

/** Opens the store and its schedules (with the clock of `VERQ_NOW_MS`), runs `work`, closes the store. */
const withSchedules = <T>(
  db: string,
  work: (schedules: Schedules, store: VerqStore) => Promise<T>,
  use: StoreUse = {},
): Promise<T> =>
  withStore(
    db,
    (store) => {
      const clock = clockFromEnv();
      return work(new Schedules(store, new JobQueue(store, { clock }), { clock }), store);
    },
    use,
  );

function checkName(name: string): string {
  if (!isValidScheduleName(name)) {
    throw new VerqError(
      "VERQ_INVALID_ARGUMENT",
      "a schedule name is 1 to 100 of A-Z a-z 0-9 . _ - starting with a letter or digit",
    );
  }
  return name;
}

const slotText = (slot: number | null): string => (slot === null ? "none yet" : iso(slot));

/** One line of `schedules list`, and the JSON of one schedule. */
const describeSchedule = (s: Schedule): string =>
  `${s.name} ${s.state} cron="${s.cron}" tz=${s.timezone} queue=${s.queue} last=${slotText(s.lastSlot)} fired=${s.fired}`;
const scheduleJson = (s: Schedule) => ({
  name: s.name,
  state: s.state,
  cron: s.cron,
  timezone: s.timezone,
  queue: s.queue,
  payload: s.payload,
  since: s.since,
  lastSlot: s.lastSlot,
  fired: s.fired,
});
const describeFired = (f: FiredSlot): string =>
  `enqueued ${f.jobId}${f.created ? "" : " (already there)"}${f.firstMissed === null ? "" : ` (skipped the missed slots from ${iso(f.firstMissed)})`}`;

/** `verq schedules add NAME`: every option is checked before the store is opened; a bad one writes nothing (exit 2). */
export const add = (context: CliContext, name: string, o: AddScheduleOptions): Promise<void> =>
  runCommand(context, o, () => {
    checkScheduleDefinition(name, o.cron, o.timezone, o.queue);
    const payload = parsePayloadOption(o.payload, '{"report": "sales"}');
    return withSchedules(o.db, async (schedules) => {
      const { changed, schedule } = await schedules.schedule(name, {
        cron: o.cron,
        timezone: o.timezone,
        payload,
        queue: o.queue,
      });
      emit(
        context.io,
        o.json === true,
        { changed, schedule: scheduleJson(schedule) },
        () => `${changed ? "scheduled" : "unchanged"} ${describeSchedule(schedule)}`,
      );
    });
  });

/** `verq schedules list`. */
export const list = (context: CliContext, o: ListScheduleOptions): Promise<void> =>
  runCommand(context, o, () =>
    withSchedules(
      o.db,
      async (schedules) => {
        const all = await schedules.list({ all: o.all === true });
        emit(context.io, o.json === true, { schedules: all.map(scheduleJson) }, () =>
          all.length === 0 ? "no schedules" : all.map(describeSchedule).join("\n"),
        );
      },
      READ_ONLY,
    ),
  );

/** `verq schedules remove NAME`: exit 4 when no active schedule has that name. */
export const remove = (context: CliContext, name: string, o: RemoveScheduleOptions): Promise<void> =>
  runCommand(context, o, () => {
    checkName(name);
    return withSchedules(o.db, async (schedules) => {
      const removed = await schedules.remove(name);
      emit(context.io, o.json === true, { name, removed }, () => (removed ? `removed ${name}` : `no active schedule ${name}`));
      return removed ? EXIT.ok : EXIT.notFound;
    });
  });

/** `verq schedules run`: the due slot of every schedule, once. */
export const run = (context: CliContext, o: RunSchedulesOptions): Promise<void> =>
  runCommand(context, o, () =>
    withSchedules(o.db, async (schedules) => {
      const fired = await schedules.runDue();
      if (o.json === true) for (const f of fired) context.io.out(JSON.stringify(f));
      else context.io.out(fired.length === 0 ? "no slot due" : fired.map(describeFired).join("\n"));
    }),
  );
