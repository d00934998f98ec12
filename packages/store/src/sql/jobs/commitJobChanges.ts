import { JOB_STREAM, type Job, type JobEvent } from "@verq/core";
import type { Kysely } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { insertEventRows, positionKey, type EventRow } from "../events/insertEventRows.ts";
import { projectRedrives } from "./projectRedrives.ts";
import { updateJobRows } from "./updateJobRows.ts";

/** What the machine decided for one existing job: its state before, after, and the events between. */
export interface JobChange {
  readonly before: Job;
  readonly after: Job;
  readonly events: readonly JobEvent[];
}

/**
 * Writes what the machine decided for existing jobs, in the caller's transaction: every event
 * in one statement, every `jobs` row in one statement (each only if still at the version the
 * decision was made on), and the `redrives` audit rows. Events and projections commit together
 * or not at all; two changes of one job must be chained (the second's `before` is the first's
 * `after`), as a batch that decides twice on one job does.
 */
export async function commitJobChanges(
  trx: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  changes: readonly JobChange[],
): Promise<void> {
  if (changes.length === 0) return;
  const rows: EventRow[] = [];
  // Per job: the version its row has in the database now, and its last state.
  const byJob = new Map<string, { beforeVersion: number; after: Job }>();
  for (const change of changes) {
    const seen = byJob.get(change.after.id);
    byJob.set(change.after.id, { beforeVersion: seen?.beforeVersion ?? change.before.version, after: change.after });
    change.events.forEach((event, i) => {
      rows.push({
        streamId: change.after.id,
        version: change.before.version + i + 1,
        type: event.type,
        data: JSON.stringify(event.data),
        at: event.data.at,
      });
    });
  }
  const positions = await insertEventRows(trx, dialect, JOB_STREAM, rows, "fail");
  await updateJobRows(trx, [...byJob.values()]);
  for (const change of changes) {
    if (!change.events.some((e) => e.type === "job.redriven")) continue;
    const eventPositions = change.events.map(
      (_, i) => positions.get(positionKey(change.after.id, change.before.version + i + 1)) ?? -1,
    );
    await projectRedrives(trx, change.after.id, change.events, eventPositions);
  }
}
