import type { JobEvent } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";

/** Writes one `redrives` audit row for each `job.redriven` event, keyed by the event's position. */
export async function projectRedrives(
  trx: Kysely<VerqDatabase>,
  jobId: string,
  events: readonly JobEvent[],
  positions: readonly number[],
): Promise<void> {
  const rows = [];
  for (const [i, event] of events.entries()) {
    const position = positions[i];
    if (event.type !== "job.redriven" || position === undefined) continue;
    rows.push({
      position,
      job_id: jobId,
      previous_token: event.data.previousToken,
      at_ms: event.data.at,
      note: event.data.note,
    });
  }
  if (rows.length > 0) await trx.insertInto("redrives").values(rows).execute();
}
