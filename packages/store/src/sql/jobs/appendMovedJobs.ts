import { JOB_STREAM, VersionConflict } from "@verq/core";
import type { Kysely } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { witness } from "../../commit-witnesses.ts";
import type { EventRow } from "../events/insertEventRows.ts";
import { readBatch } from "../batchValues.ts";
import { columnsAndValues, mutableColumns } from "./jobRow.ts";
import type { JobRowChange } from "./updateJobRows.ts";

/**
 * The events of jobs that moved on, appended, and their `jobs` rows rewritten, in one statement
 * (a data-modifying `with`, where `dialect.statements.standaloneWrites` holds): what
 * `insertEventRows` and then `updateJobRows` write, one round trip instead of two, with both
 * checks kept. An event whose version a stream already has fails the statement (the UNIQUE
 * arbiter), and a row no longer at the version decided on is not rewritten: either is
 * `VERQ_VERSION_CONFLICT`, and the caller's transaction rolls back. `events` are the jobs'
 * events in append order; `moved` one change a job, with its last state. Nothing here reads the
 * events' positions, so a change that needs them (a job's creation, a redrive's audit row) is
 * not written this way.
 */
export async function appendMovedJobs(
  trx: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  events: readonly EventRow[],
  moved: readonly JobRowChange[],
): Promise<void> {
  if (events.length === 0 && moved.length === 0) return;
  const { names, types, values } = columnsAndValues(moved.map((c) => mutableColumns(c.after)));
  // One row a event: the event's five columns, then, on the last event of each moved job only,
  // its row's columns and the version it must still have (null elsewhere: no row is rewritten).
  const rowOf = new Map<string, { readonly values: readonly unknown[]; readonly beforeVersion: number }>();
  moved.forEach((change, i) => rowOf.set(change.after.id, { values: values[i] ?? [], beforeVersion: change.beforeVersion }));
  const lastEvent = new Map<string, number>();
  events.forEach((event, i) => lastEvent.set(event.streamId, i));
  if (moved.some((change) => !lastEvent.has(change.after.id))) throw new Error("a moved job without an event");
  const blank = names.map(() => null);
  const rows = events.map((event, i) => {
    const row = lastEvent.get(event.streamId) === i ? rowOf.get(event.streamId) : undefined;
    return [
      event.streamId,
      event.version,
      event.type,
      event.data,
      event.at,
      ...(row?.values ?? blank),
      row?.beforeVersion ?? null,
    ];
  }) as (string | number | null)[][];
  const picks = names.map((_, i) => `v.column${i + 6}`).join(", ");
  const beforeVersion = `v.column${names.length + 6}`;
  let rewritten = 0;
  try {
    const counts = await readBatch(
      trx,
      dialect,
      ["text", "integer", "text", "text", "bigint", ...types, "integer"],
      rows,
      (v) =>
        `with v as (select * from ${v.table("v")}), ` +
        `appended as (insert into events (stream_type, stream_id, version, type, data, at_ms) ` +
        `select '${JOB_STREAM}', v.column1, v.column2, v.column3, v.column4, v.column5 from v), ` +
        `moved as (update jobs set (${names.join(", ")}) = (${picks}) from v ` +
        `where ${v.matches("jobs.id", "v", 1)} and jobs.version = ${beforeVersion} returning 1) ` +
        `select count(*) from moved`,
    );
    for (const [count] of counts) rewritten += Number(count);
  } catch (error) {
    if (!dialect.errors.isUniqueViolation(error)) throw error;
    const first = events[0];
    throw new VersionConflict(JOB_STREAM, first?.streamId ?? "", (first?.version ?? 1) - 1);
  }
  if (rewritten !== moved.length) {
    const first = moved[0];
    throw new VersionConflict(JOB_STREAM, first?.after.id ?? "", first?.beforeVersion ?? 0);
  }
  witness(trx, JOB_STREAM, events);
}
