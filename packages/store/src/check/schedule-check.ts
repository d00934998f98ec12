import {
  SCHEDULE_EVENT_TYPES,
  SCHEDULE_STREAM,
  canonicalJson,
  evolveSchedule,
  newSchedule,
  type Schedule,
  type ScheduleEvent,
} from "@verq/core";
import { selectRowsByKeys } from "../sql/check/selectRowsByKeys.ts";
import { selectRowsWithoutStream } from "../sql/check/selectRowsWithoutStream.ts";
import { rowToSchedule, type SchedulesTable } from "../sql/schedules/scheduleTables.ts";
import { streamName } from "./finding.ts";
import { describeDifferences, eachPage, evolveOrReport, typedEvent, type StreamTypeCheck } from "./stream-check.ts";

/** One schedule stream folded so far. */
export interface ScheduleStreamAudit {
  readonly id: string;
  schedule: Schedule;
  broken: boolean;
}

const SCHEDULE_FIELDS = ["state", "cron", "timezone", "queue", "since", "lastSlot", "fired", "updatedAt", "version"] as const;

/**
 * Schedule streams: the fold with `evolveSchedule` against each `schedules` row, and a slot
 * recorded at most once (every `schedule.fired` after the last slot: `EVENT_INVALID` otherwise).
 */
export const scheduleCheck: StreamTypeCheck<ScheduleStreamAudit> = {
  streamType: SCHEDULE_STREAM,
  begin: (id) => ({ id, schedule: newSchedule(id), broken: false }),

  step(s, stored, report) {
    if (s.broken) return;
    const name = streamName(SCHEDULE_STREAM, s.id);
    const event = typedEvent<ScheduleEvent>(stored, SCHEDULE_EVENT_TYPES, name, report);
    if (event === undefined) {
      s.broken = true;
      return;
    }
    if (event.type === "schedule.fired" && s.schedule.lastSlot !== null && event.data.slot <= s.schedule.lastSlot) {
      report(
        "EVENT_INVALID",
        name,
        `v${stored.version} schedule.fired records slot ${event.data.slot}, not after the last slot ${s.schedule.lastSlot}`,
      );
    }
    const schedule = evolveOrReport(evolveSchedule, s.schedule, event, stored, name, report);
    if (schedule === undefined) s.broken = true;
    else s.schedule = schedule;
  },

  async settle(db, streams, report) {
    const rows = new Map(
      (
        await selectRowsByKeys<SchedulesTable>(
          db,
          "schedules",
          "name",
          streams.map((s) => s.id),
        )
      ).map((r) => [r.name, r]),
    );
    for (const s of streams) {
      if (s.broken || s.schedule.version === 0) continue;
      const name = streamName(SCHEDULE_STREAM, s.id);
      const row = rows.get(s.id);
      if (row === undefined) {
        report("PROJECTION_MISSING", name, `no schedules row for a stream of ${s.schedule.version} events`);
        continue;
      }
      const projected = rowToSchedule(row);
      const differences = describeDifferences(projected, s.schedule, SCHEDULE_FIELDS);
      if (canonicalJson(projected.payload) !== canonicalJson(s.schedule.payload)) differences.push("payload differs");
      if (differences.length > 0) report("PROJECTION_MISMATCH", name, `schedules row: ${differences.join(", ")}`);
    }
  },

  async orphans(db, batchSize, report) {
    await eachPage(
      batchSize,
      (after, limit) => selectRowsWithoutStream<SchedulesTable>(db, "schedules", "name", SCHEDULE_STREAM, after, limit),
      (row) => row.name,
      (row) =>
        report("PROJECTION_ORPHAN", streamName(SCHEDULE_STREAM, row.name), `schedules row (state ${row.state}) without events`),
    );
  },
};
