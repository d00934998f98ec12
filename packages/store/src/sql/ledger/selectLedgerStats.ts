import { GUID_STATES, LEDGER_AUDIT_ID, LEDGER_AUDIT_STREAM, type GuidState } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { ledgerDb } from "./ledgerTables.ts";

/** Figures of the ledger for operators. Identifiers and codes only, never requests or responses. */
export interface LedgerStats {
  readonly total: number;
  readonly byState: Readonly<Record<GuidState, number>>;
  /** The UNKNOWN entry waiting longest for an inquiry, and since when. */
  readonly oldestUnknown: { readonly guid: string; readonly since: number } | null;
  /** The FAILED entry waiting longest for a reprocess, since when, and its attempts so far. */
  readonly oldestFailed: { readonly guid: string; readonly since: number; readonly attempts: number } | null;
  readonly attempts: {
    /** Sends to the core over all entries. */
    readonly total: number;
    /** The most sends of one entry. */
    readonly max: number;
    /** Entries sent more than once (after a FAILED). */
    readonly retried: number;
  };
  /** The last purge batch: when, and how many entries it deleted. */
  readonly lastPurge: { readonly at: number; readonly count: number } | null;
}

/** Reads {@link LedgerStats} in a few aggregate queries. */
export async function selectLedgerStats(db: Kysely<VerqDatabase>): Promise<LedgerStats> {
  const ledger = ledgerDb(db);
  const stateRows = await ledger
    .selectFrom("ledger")
    .select(["state", (eb) => eb.fn.countAll<number>().as("n")])
    .groupBy("state")
    .execute();
  const attemptRow = await ledger
    .selectFrom("ledger")
    .select((eb) => [
      eb.fn.sum<number>("attempts").as("total"),
      eb.fn.max<number>("attempts").as("max"),
      eb.fn.countAll<number>().filterWhere("attempts", ">", 1).as("retried"),
    ])
    .executeTakeFirst();
  const oldest = (state: GuidState) =>
    ledger
      .selectFrom("ledger")
      .select(["guid", "updated_at", "attempts"])
      .where("state", "=", state)
      .orderBy("updated_at")
      .orderBy("guid")
      .limit(1)
      .executeTakeFirst();
  const unknown = await oldest("UNKNOWN");
  const failed = await oldest("FAILED");
  const purge = await db
    .selectFrom("events")
    .select(["data", "at_ms"])
    .where("stream_type", "=", LEDGER_AUDIT_STREAM)
    .where("stream_id", "=", LEDGER_AUDIT_ID)
    .orderBy("version", "desc")
    .limit(1)
    .executeTakeFirst();

  const byState = Object.fromEntries(GUID_STATES.map((s) => [s, 0])) as Record<GuidState, number>;
  for (const row of stateRows) byState[row.state as GuidState] = Number(row.n);
  return {
    total: GUID_STATES.reduce((sum, s) => sum + byState[s], 0),
    byState,
    oldestUnknown: unknown === undefined ? null : { guid: unknown.guid, since: Number(unknown.updated_at) },
    oldestFailed:
      failed === undefined ? null : { guid: failed.guid, since: Number(failed.updated_at), attempts: Number(failed.attempts) },
    attempts: {
      total: Number(attemptRow?.total ?? 0),
      max: Number(attemptRow?.max ?? 0),
      retried: Number(attemptRow?.retried ?? 0),
    },
    lastPurge:
      purge === undefined
        ? null
        : { at: Number(purge.at_ms), count: (JSON.parse(purge.data) as { guids: readonly string[] }).guids.length },
  };
}
