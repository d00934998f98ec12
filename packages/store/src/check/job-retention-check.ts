import { JOB_RETENTION_STREAM, JOB_STREAM, type JobsPruned } from "@verq/core";
import { selectEventsBefore } from "../sql/check/selectEventsBefore.ts";
import { selectRowsByKeys } from "../sql/check/selectRowsByKeys.ts";
import { streamName } from "./finding.ts";
import type { StreamTypeCheck } from "./stream-check.ts";

const IDS_PER_LOOKUP = 1_000;

interface PruneRecord {
  readonly version: number;
  readonly position: number;
  readonly ids: readonly string[];
}

/** The prune audit stream read so far: the prunes whose jobs are still to be looked up. */
export interface JobRetentionStreamAudit {
  readonly id: string;
  pending: PruneRecord[];
}

/**
 * The jobs' prune audit (`job-retention/prunes`): every event a `jobs.pruned`, and every job it
 * lists gone from the log up to it (`PURGE_INCOMPLETE` otherwise) and in the archive
 * (`ARCHIVE_MISMATCH` otherwise). The prune archives the jobs, appends the audit event and
 * deletes their streams in one transaction, and an archived id is never enqueued again.
 */
export const jobRetentionCheck: StreamTypeCheck<JobRetentionStreamAudit> = {
  streamType: JOB_RETENTION_STREAM,
  begin: (id) => ({ id, pending: [] }),

  step(s, stored, report) {
    if (stored.type !== "jobs.pruned") {
      report(
        "EVENT_INVALID",
        streamName(JOB_RETENTION_STREAM, s.id),
        `v${stored.version} has the type ${JSON.stringify(stored.type)}, not jobs.pruned`,
      );
      return;
    }
    const ids = (stored.data as Partial<JobsPruned["data"]>).ids;
    s.pending.push({ version: stored.version, position: stored.position, ids: Array.isArray(ids) ? ids : [] });
  },

  async drain(db, s, report) {
    const pending = s.pending;
    s.pending = [];
    for (const prune of pending) {
      const by = `${JOB_RETENTION_STREAM} v${prune.version} (position ${prune.position})`;
      for (let from = 0; from < prune.ids.length; from += IDS_PER_LOOKUP) {
        const slice = prune.ids.slice(from, from + IDS_PER_LOOKUP);
        for (const stream of await selectEventsBefore(db, JOB_STREAM, slice, prune.position))
          report(
            "PURGE_INCOMPLETE",
            streamName(JOB_STREAM, stream.streamId),
            `pruned by ${by} but ${stream.count} of its events from before the prune remain`,
          );
        const archived = new Set((await selectRowsByKeys<{ id: string }>(db, "job_archive", "id", slice)).map((r) => r.id));
        for (const id of slice)
          if (!archived.has(id)) report("ARCHIVE_MISMATCH", streamName(JOB_STREAM, id), `pruned by ${by} but not in the archive`);
      }
    }
  },

  settle: () => Promise.resolve(),
  orphans: () => Promise.resolve(),
};
