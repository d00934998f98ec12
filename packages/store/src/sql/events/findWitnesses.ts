import type { Kysely } from "kysely";
import type { CommitWitness } from "../../commit-witnesses.ts";
import type { StoreDialect } from "../../dialect/store-dialect.ts";
import type { VerqDatabase } from "../../schema.ts";
import { insertEventRows, positionKey } from "./insertEventRows.ts";

/** Thrown to roll back the probe of {@link findWitnesses}, whatever it found. */
class Probed extends Error {}

/**
 * How many of `witnesses` stand in the log exactly as they were written (same place, type and
 * data). Each is written again insert-or-nothing, in a transaction that is then rolled back, so
 * that nothing is left behind: an insert into a place that a transaction still committing holds
 * waits for that transaction to end, which a plain read would not. A place another writer's
 * event fills is not counted.
 */
export async function findWitnesses(
  db: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  witnesses: readonly CommitWitness[],
): Promise<number> {
  const byType = new Map<string, CommitWitness[]>();
  for (const w of witnesses) {
    const rows = byType.get(w.streamType);
    if (rows === undefined) byType.set(w.streamType, [w]);
    else rows.push(w);
  }
  let found = 0;
  try {
    await db.transaction().execute(async (trx) => {
      for (const [streamType, rows] of byType) {
        const free = await insertEventRows(trx, dialect, streamType, rows, "skip");
        const taken = rows.filter((row) => !free.has(positionKey(row.streamId, row.version)));
        if (taken.length === 0) continue;
        const stored = await trx
          .selectFrom("events")
          .select(["stream_id", "version", "type", "data"])
          .where("stream_type", "=", streamType)
          .where("stream_id", "in", [...new Set(taken.map((row) => row.streamId))])
          .where("version", "in", [...new Set(taken.map((row) => row.version))])
          .execute();
        const standing = new Map(stored.map((e) => [positionKey(e.stream_id, Number(e.version)), e]));
        for (const row of taken) {
          const event = standing.get(positionKey(row.streamId, row.version));
          if (event?.type === row.type && event.data === row.data) found++;
        }
      }
      throw new Probed();
    });
  } catch (error) {
    if (!(error instanceof Probed)) throw error;
  }
  return found;
}
