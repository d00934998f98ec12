import { VersionConflict } from "@verq/core";
import type { Kysely } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { witness } from "../../commit-witnesses.ts";

/** An event as the caller hands it to the log. */
export interface NewEvent {
  readonly type: string;
  readonly data: { readonly at: number };
}

/**
 * Appends `events` to one stream right after `expectedVersion`, in the caller's transaction,
 * and returns their global positions. A concurrent writer that got there first makes the
 * UNIQUE(stream_type, stream_id, version) constraint fail: that is reported as
 * `VERQ_VERSION_CONFLICT`, and the caller's transaction must roll back.
 */
export async function appendEvents(
  trx: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  streamType: string,
  streamId: string,
  expectedVersion: number,
  events: readonly NewEvent[],
): Promise<number[]> {
  if (events.length === 0) return [];
  const values = events.map((event, i) => ({
    stream_type: streamType,
    stream_id: streamId,
    version: expectedVersion + i + 1,
    type: event.type,
    data: JSON.stringify(event.data),
    at_ms: event.data.at,
  }));
  try {
    const rows = await trx.insertInto("events").values(values).returning("position").execute();
    witness(
      trx,
      streamType,
      values.map((v) => ({ streamId, version: v.version, type: v.type, data: v.data, at: v.at_ms })),
    );
    return rows.map((r) => Number(r.position));
  } catch (error) {
    if (dialect.errors.isUniqueViolation(error)) throw new VersionConflict(streamType, streamId, expectedVersion);
    throw error;
  }
}
