import {
  DEFAULT_QUEUE,
  VerqError,
  canonicalJson,
  checkScheduleDefinition,
  decideSchedule,
  isValidScheduleName,
  newSchedule,
  scheduleCommands,
  scheduleDueSlot,
  scheduleRefusalError,
  systemClock,
  type Clock,
  type JsonValue,
  type Schedule,
  type ScheduleCommand,
  type ScheduleDecider,
  type ScheduleEvent,
  type ScheduleDecision,
} from "@verq/core";
import { handle, handleWithRetry, retryOnVersionConflict, WITNESSED } from "./command-path.ts";
import type { EnqueueInput } from "./jobs/enqueue-jobs.ts";
import type { JobQueue } from "./jobs/job-queue.ts";
import { selectSchedules } from "./sql/schedules/selectSchedules.ts";
import type { VerqStore } from "./store.ts";
import { scheduleStream } from "./streams/schedule-stream.ts";

/** What a schedule does; `timezone` is `UTC`, `payload` null and `queue` `default` unless told. */
export interface ScheduleInput {
  /** 5 fields (minute precision), 6 (seconds first), or an `@alias` such as `@daily`. */
  readonly cron: string;
  /** An IANA timezone in which `cron` is read. */
  readonly timezone?: string;
  readonly payload?: unknown;
  readonly queue?: string;
}

/** What {@link Schedules.schedule} did: `changed: false` when the schedule already had this definition. */
export interface ScheduleResult {
  readonly changed: boolean;
  readonly schedule: Schedule;
}

/** One slot {@link Schedules.runDue} enqueued. */
export interface FiredSlot {
  readonly name: string;
  readonly slot: number;
  readonly jobId: string;
  /** False when a job of that id already existed (it was enqueued otherwise): nothing was added. */
  readonly created: boolean;
  /** The first earlier due slot skipped by the missed-slot policy, or null. */
  readonly firstMissed: number | null;
}

/** Settings of {@link Schedules}. */
export interface SchedulesOptions {
  readonly clock?: Clock;
  /**
   * What decides every change of a schedule: the schedule machine (`decideSchedule`) by default,
   * and in production always. A test passes a variant to prove that its suite catches a broken rule.
   */
  readonly decider?: ScheduleDecider | undefined;
}

/**
 * Cron schedules that enqueue jobs. Each schedule is a stream decided by the schedule machine and
 * projected into `schedules`. {@link runDue} enqueues, for each active schedule, its latest due
 * slot as the job `schedule:<name>:<slot ISO time>` (see `scheduleJobId`) and records the slot, in
 * one transaction: any number of schedulers on any number of hosts may run it, and each slot is
 * enqueued once. Missed-slot policy: when several slots fell due since the last one enqueued (no
 * scheduler ran for a while), only the latest is enqueued; the earlier ones are skipped, and the
 * first of them is recorded in the `schedule.fired` event.
 *
 * @example
 * const schedules = new Schedules(store, queue);
 * await schedules.schedule("nightly-report", { cron: "0 2 * * *", timezone: "Europe/Berlin", payload: { report: "sales" } });
 * setInterval(() => void schedules.runDue(), 1_000); // or let `verq jobs work` run them
 */
export class Schedules {
  readonly #store: VerqStore;
  readonly #queue: JobQueue;
  readonly #clock: Clock;
  readonly #decider: ScheduleDecider;

  constructor(store: VerqStore, queue: JobQueue, options: SchedulesOptions = {}) {
    this.#store = store;
    this.#queue = queue;
    this.#clock = options.clock ?? systemClock;
    this.#decider = options.decider ?? decideSchedule;
  }

  /**
   * Adds schedule `name`, or changes its definition; its slots count from now. Declaring the
   * same definition again changes nothing (`changed: false`), so a service may declare its
   * schedules on every start. Throws `VERQ_INVALID_ARGUMENT` (name, queue), `VERQ_INVALID_CRON`,
   * `VERQ_INVALID_TIMEZONE` or `VERQ_INVALID_PAYLOAD`, writing nothing.
   */
  async schedule(name: string, input: ScheduleInput): Promise<ScheduleResult> {
    const timezone = input?.timezone ?? "UTC";
    const queue = input?.queue ?? DEFAULT_QUEUE;
    checkScheduleDefinition(name, input?.cron, timezone, queue);
    const payload = JSON.parse(canonicalJson(input.payload ?? null)) as JsonValue;
    const definition = { cron: input.cron, timezone, payload, queue };
    const { before, decision } = await this.#decide(name, (now) => scheduleCommands.define({ definition, now }));
    if (decision.accepted) return { changed: true, schedule: decision.after };
    // Every other refusal of a define is an error; `unchanged` is the answer.
    const error = scheduleRefusalError(decision.refusal);
    if (error !== null) throw error;
    return { changed: false, schedule: before };
  }

  /** Removes schedule `name`: `true` when it was active, `false` (nothing changed) when absent or already removed. */
  async remove(name: string): Promise<boolean> {
    checkName(name);
    const { decision } = await this.#decide(name, (now) => scheduleCommands.remove({ now }));
    return decision.accepted;
  }

  /** Schedule `name` (active or removed), or null when it was never added. */
  async get(name: string): Promise<Schedule | null> {
    checkName(name);
    return (await selectSchedules(this.#store.db, { names: [name] }))[0] ?? null;
  }

  /** The active schedules (and the removed ones too with `all`), in name order. */
  async list(options: { readonly all?: boolean } = {}): Promise<Schedule[]> {
    return selectSchedules(this.#store.db, { activeOnly: options.all !== true });
  }

  /**
   * Enqueues the due slot of every active schedule at `now` (the clock's by default) and records
   * it; returns the slots this call enqueued. One read of the active schedules when nothing is
   * due. A slot another scheduler recorded first is not enqueued again (the machine refuses it as
   * `already-fired`, and its job id would make the enqueue a no-op anyway).
   */
  async runDue(now: number = this.#clock.now()): Promise<FiredSlot[]> {
    const fired: FiredSlot[] = [];
    for (const schedule of await this.#store.read((db) => selectSchedules(db, { activeOnly: true }))) {
      if (scheduleDueSlot(schedule, now) === null) continue;
      const slot = await this.#fire(schedule.name, now);
      if (slot !== null) fired.push(slot);
    }
    return fired;
  }

  /**
   * Decides and records the due slot of one schedule and enqueues its job, in one transaction:
   * the slot and its job commit together or not at all.
   */
  async #fire(name: string, now: number): Promise<FiredSlot | null> {
    return retryOnVersionConflict(() =>
      this.#store.transaction(
        async (trx) => {
          const read = (await scheduleStream.load(trx, [name])).get(name);
          const due = read === undefined ? null : scheduleDueSlot(read, now);
          if (due === null) return null;
          const fire = scheduleCommands.fire({ slot: due.slot, firstMissed: due.firstMissed, now });
          const { before, decision } = await handle(
            trx,
            this.#store.dialect,
            scheduleStream,
            this.#decider,
            name,
            newSchedule,
            fire,
          );
          if (!decision.accepted) return null;
          // The job is the one the machine named in its `schedule.fired` event.
          const jobId = firedJobId(decision.events);
          const { created } = await this.#queue.enqueue(slotJob(before, jobId), { trx });
          return { name, slot: due.slot, jobId, created, firstMissed: due.firstMissed };
        },
        undefined,
        WITNESSED,
      ),
    );
  }

  /** Load → decide → append, in one transaction; decided again when another writer appended first. */
  async #decide(
    name: string,
    command: (now: number) => ScheduleCommand,
  ): Promise<{ before: Schedule; decision: ScheduleDecision }> {
    const item = { id: name, commands: () => [command(this.#clock.now())] };
    return handleWithRetry(this.#store, scheduleStream, this.#decider, item, newSchedule);
  }
}

function firedJobId(events: readonly ScheduleEvent[]): string {
  for (const event of events) if (event.type === "schedule.fired") return event.data.jobId;
  throw new Error("an accepted fire emitted no schedule.fired event");
}

/** The one place a schedule's slot becomes an enqueue input: the slot's job id, the schedule's payload and queue. */
function slotJob(schedule: Schedule, id: string): EnqueueInput {
  return { id, payload: schedule.payload, queue: schedule.queue };
}

function checkName(name: string): void {
  if (!isValidScheduleName(name)) {
    throw new VerqError(
      "VERQ_INVALID_ARGUMENT",
      "a schedule name is 1 to 100 of A-Z a-z 0-9 . _ - starting with a letter or digit",
    );
  }
}
