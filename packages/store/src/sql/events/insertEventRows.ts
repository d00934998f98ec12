import { VersionConflict } from "@verq/core";
import type { Kysely } from "kysely";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { readBatch } from "../batchValues.ts";
import { witness } from "../../commit-witnesses.ts";

/** One event to append: its stream, its version in that stream, and its data as JSON text. */
export interface EventRow {
  readonly streamId: string;
  readonly version: number;
  readonly type: string;
  readonly data: string;
  readonly at: number;
  /** The version of the event's shape; absent: the column's default, 1. */
  readonly schemaVersion?: number;
}

/** `streamId` and `version` → global position, for the rows that were written. */
export type Positions = Map<string, number>;

/** The key of {@link Positions}. */
export const positionKey = (streamId: string, version: number): string => `${version}:${streamId}`;

const COLUMNS = ["text", "text", "integer", "text", "text", "bigint"] as const;
const VERSIONED_COLUMNS = [...COLUMNS, "integer"] as const;

/**
 * Appends many events of one stream type in one batch statement (see {@link readBatch}), their
 * positions taken in row order.
 *
 * `onDuplicate: "fail"` reports a taken (stream, version) as `VERQ_VERSION_CONFLICT` (another
 * writer got there first; the transaction must roll back). `"skip"` leaves it out: a stream's
 * first event written with "skip" is an insert-or-nothing, and the UNIQUE constraint, not a
 * preceding lookup, decides who created the stream. Only written rows are in the result.
 */
export async function insertEventRows(
  trx: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  streamType: string,
  rows: readonly EventRow[],
  onDuplicate: "fail" | "skip",
): Promise<Positions> {
  const positions: Positions = new Map();
  if (rows.length === 0) return positions;
  // Verq's own streams leave the schema version to the column's default (1).
  const versioned = rows[0]?.schemaVersion !== undefined;
  const values = rows.map((r) =>
    versioned
      ? [streamType, r.streamId, r.version, r.type, r.data, r.at, r.schemaVersion ?? 1]
      : [streamType, r.streamId, r.version, r.type, r.data, r.at],
  );
  const conflict = onDuplicate === "skip" ? " on conflict (stream_type, stream_id, version) do nothing" : "";
  try {
    const written = await readBatch(
      trx,
      dialect,
      versioned ? VERSIONED_COLUMNS : COLUMNS,
      values,
      (v) =>
        `insert into events (stream_type, stream_id, version, type, data, at_ms${versioned ? ", schema_version" : ""}) ${v.rows}${conflict} returning stream_id, version, position`,
    );
    for (const [streamId, version, position] of written)
      positions.set(positionKey(streamId as string, Number(version)), Number(position));
    witness(
      trx,
      streamType,
      onDuplicate === "fail" ? rows : rows.filter((r) => positions.has(positionKey(r.streamId, r.version))),
    );
  } catch (error) {
    if (onDuplicate === "fail" && dialect.errors.isUniqueViolation(error)) {
      const first = rows[0];
      throw new VersionConflict(streamType, first?.streamId ?? "", (first?.version ?? 1) - 1);
    }
    throw error;
  }
  return positions;
}
