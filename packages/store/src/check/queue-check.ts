import { QUEUE_EVENT_TYPES, QUEUE_STREAM, evolveQueue, newQueue, type QueueEvent, type QueueSettings } from "@verq/core";
import type { QueuesTable } from "../schema.ts";
import { selectRowsByKeys } from "../sql/check/selectRowsByKeys.ts";
import { selectRowsWithoutStream } from "../sql/check/selectRowsWithoutStream.ts";
import { streamName } from "./finding.ts";
import { describeDifferences, eachPage, evolveOrReport, num, typedEvent, type StreamTypeCheck } from "./stream-check.ts";

/** One queue stream folded so far. */
export interface QueueStreamAudit {
  readonly name: string;
  queue: QueueSettings;
  broken: boolean;
}

/**
 * Queue streams: the fold with `evolveQueue` (what the store projects `queues` with) against the
 * `queues` row of each queue (its limit, time and version), and `queues` rows no stream explains.
 */
export const queueCheck: StreamTypeCheck<QueueStreamAudit> = {
  streamType: QUEUE_STREAM,
  begin: (name) => ({ name, queue: newQueue(name), broken: false }),

  step(s, stored, report) {
    if (s.broken) return;
    const name = streamName(QUEUE_STREAM, s.name);
    const event = typedEvent<QueueEvent>(stored, QUEUE_EVENT_TYPES, name, report);
    const queue = event === undefined ? undefined : evolveOrReport(evolveQueue, s.queue, event, stored, name, report);
    if (queue === undefined) s.broken = true;
    else s.queue = queue;
  },

  async settle(db, streams, report) {
    const rows = new Map(
      (
        await selectRowsByKeys<QueuesTable>(
          db,
          "queues",
          "name",
          streams.map((s) => s.name),
        )
      ).map((r) => [r.name, r]),
    );
    for (const s of streams) {
      if (s.broken) continue;
      const name = streamName(QUEUE_STREAM, s.name);
      const row = rows.get(s.name);
      if (row === undefined) {
        report("PROJECTION_MISSING", name, `no queues row for a stream of ${s.queue.version} events`);
        continue;
      }
      const differences = describeDifferences(
        { maxLeased: num(row.max_leased), updatedAt: num(row.updated_at), version: num(row.version) },
        s.queue,
        ["maxLeased", "updatedAt", "version"],
      );
      if (differences.length > 0) report("PROJECTION_MISMATCH", name, `queues row: ${differences.join(", ")}`);
    }
  },

  async orphans(db, batchSize, report) {
    await eachPage(
      batchSize,
      (after, limit) => selectRowsWithoutStream<QueuesTable>(db, "queues", "name", QUEUE_STREAM, after, limit),
      (row) => row.name,
      (row) => report("PROJECTION_ORPHAN", streamName(QUEUE_STREAM, row.name), "queues row without events"),
    );
  },
};
