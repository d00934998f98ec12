import { QUEUE_STREAM, VersionConflict, type QueueEvent, type QueueSettings } from "@verq/core";
import type { StreamProjection } from "../command-path.ts";

/**
 * How the store keeps queue settings on the one command path: loaded from, and projected to, the
 * `queues` row of each queue (inserted for a queue's first event; else rewritten only while still
 * at the version decided on, `VERQ_VERSION_CONFLICT` otherwise). Claims read the limit there.
 */
export const queueStream: StreamProjection<QueueSettings, QueueEvent> = {
  streamType: QUEUE_STREAM,
  idOf: (queue) => queue.name,
  async load(trx, names) {
    const found = new Map<string, QueueSettings>();
    if (names.length === 0) return found;
    const rows = await trx.selectFrom("queues").selectAll().where("name", "in", names).execute();
    for (const row of rows) {
      const maxLeased = row.max_leased === null ? null : Number(row.max_leased);
      found.set(row.name, {
        name: row.name,
        state: maxLeased === null ? "unlimited" : "limited",
        maxLeased,
        updatedAt: Number(row.updated_at),
        version: Number(row.version),
      });
    }
    return found;
  },
  async project(trx, changes) {
    for (const { before, after } of changes) {
      const values = { max_leased: after.maxLeased, updated_at: after.updatedAt, version: after.version };
      if (before.version === 0) {
        await trx
          .insertInto("queues")
          .values({ name: after.name, ...values })
          .execute();
        continue;
      }
      const result = await trx
        .updateTable("queues")
        .set(values)
        .where("name", "=", after.name)
        .where("version", "=", before.version)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) throw new VersionConflict(QUEUE_STREAM, after.name, before.version);
    }
  },
};
