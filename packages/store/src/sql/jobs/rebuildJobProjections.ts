import { JOB_STREAM, canonicalJson, evolveJob, newJob, type Job, type JobEvent } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { byStreamType, upcastEvents } from "../../declared/upcast-events.ts";
import { readAllEvents } from "../events/readAllEvents.ts";
import { jobToRow } from "./jobRow.ts";
import { projectRedrives } from "./projectRedrives.ts";

/**
 * Drops the `jobs` and `redrives` projections and folds them again from the event log, in the
 * caller's transaction. The result must equal the live projections (a property test checks it).
 * Each event is read at its current shape (upcast through the job stream's definition). The
 * `redrives` rows of pruned jobs stay: their events are gone, and the archive explains them.
 */
export async function rebuildJobProjections(trx: Kysely<VerqDatabase>): Promise<{ jobs: number; events: number }> {
  await trx.deleteFrom("redrives").where("job_id", "not in", trx.selectFrom("job_archive").select("id")).execute();
  await trx.deleteFrom("jobs").execute();
  const events = upcastEvents(await readAllEvents(trx, JOB_STREAM), byStreamType());
  const jobs = new Map<string, { job: Job; payloadJson: string; position: number }>();
  for (const stored of events) {
    const event = { type: stored.type, data: stored.data } as JobEvent;
    const entry = jobs.get(stored.streamId);
    const job = evolveJob(entry?.job ?? newJob(stored.streamId), event);
    if (entry === undefined) {
      const payload = event.type === "job.enqueued" ? event.data.payload : null;
      jobs.set(stored.streamId, { job, payloadJson: canonicalJson(payload), position: stored.position });
    } else {
      entry.job = job;
    }
    await projectRedrives(trx, stored.streamId, [event], [stored.position]);
  }
  for (const { job, payloadJson, position } of jobs.values()) {
    await trx
      .insertInto("jobs")
      .values(jobToRow(job, payloadJson, position))
      .execute();
  }
  return { jobs: jobs.size, events: events.length };
}
