import {
  GUID_STREAM,
  VerqError,
  VersionConflict,
  guidEvents,
  type GuidEntry,
  type GuidEvent,
  type LedgerEntry,
} from "@verq/core";
import type { Kysely } from "kysely";
import { commitChanges, type StreamChange, type StreamProjection } from "../command-path.ts";
import type { StoreDialect } from "../dialect/store-dialect.ts";
import type { VerqDatabase } from "../schema.ts";
import { appendLedgerAudit } from "../sql/ledger/appendLedgerAudit.ts";
import { executeTemplate } from "../sql/queryTemplate.ts";
import { entryToRow, rowToEntry, type LedgerRow } from "../sql/ledger/ledgerRow.ts";
import { ledgerDb } from "../sql/ledger/ledgerTables.ts";
import { purgeGuidStreams } from "../sql/ledger/purgeGuidStreams.ts";

type GuidPurged = Extract<GuidEvent, { readonly type: "guid.purged" }>;

/** A decided change of one GUID's stream; a creation is a change from the GUID's blank (NEW, version 0). */
export type GuidChange = StreamChange<GuidEntry, GuidEvent>;

/**
 * How the store keeps the GUID ledger on the one command path: loaded by GUID from `ledger`;
 * projected as the `ledger` row of each change (inserted for a stream created from version 0,
 * else updated only while still at the version decided on: `VERQ_VERSION_CONFLICT` otherwise).
 * A change that ends in `guid.purged` (SPEC G7) deletes the whole stream and its row instead
 * (its `guid.purged`, appended right after the version decided on, was the version check), and
 * each purge batch writes one
 * `ledger.purged` audit event in the same transaction. `dialect` is the one the audit is
 * appended with.
 */
export function guidStream(dialect: StoreDialect): StreamProjection<GuidEntry, GuidEvent> {
  return {
    streamType: GUID_STREAM,
    idOf: (entry) => entry.guid,
    async load(trx, ids) {
      const found = new Map<string, GuidEntry>();
      if (ids.length === 0) return found;
      const { rows } = await executeTemplate<LedgerRow>(
        trx,
        dialect,
        `ledger.select-${ids.length}`,
        (param) =>
          ledgerDb(trx)
            .selectFrom("ledger")
            .selectAll()
            .where(
              "guid",
              "in",
              ids.map((_, i) => param<string>(`g${i}`)),
            ),
        Object.fromEntries(ids.map((id, i) => [`g${i}`, id])),
      );
      for (const row of rows) found.set(row.guid, rowToEntry(row));
      return found;
    },
    async project(trx, changes) {
      const purges: { readonly before: LedgerEntry; readonly purged: GuidPurged }[] = [];
      for (const { before, after, events } of changes) {
        const purged = events.find((e): e is GuidPurged => e.type === "guid.purged");
        if (purged === undefined) await writeLedgerRow(trx, dialect, before, stored(after));
        else purges.push({ before: stored(before), purged });
      }
      if (purges.length === 0) return;
      // One audit event per purge run's settings (a batch decides all its purges with one command),
      // appended before the streams are deleted: the newest event of the log is then an audit
      // event, which is never deleted, so no position is ever handed out twice (migration 005).
      const runs = new Map<string, { data: GuidPurged["data"]; guids: string[] }>();
      for (const { before, purged } of purges) {
        const key = JSON.stringify(purged.data);
        const run = runs.get(key) ?? { data: purged.data, guids: [] };
        run.guids.push(before.guid);
        runs.set(key, run);
      }
      for (const { data, guids } of runs.values())
        await appendLedgerAudit(trx, dialect, guidEvents.ledgerPurged({ guids, ...data }));
      await purgeGuidStreams(
        trx,
        purges.map((p) => p.before.guid),
      );
    },
  };
}

/**
 * The claim of SPEC G4 for several GUIDs at once: commits the creations the guid machine decided
 * from their blanks (NEW → RECEIVED) as one insert-or-nothing of their first events, in the
 * caller's transaction, with their `ledger` rows. The affected rows, not a preceding lookup,
 * decide each owner: `true` means this call created that stream; `false` means another writer
 * had, and nothing was written for it (the caller then decides a repeat against the winner's
 * entry). The GUIDs must be distinct: two claims of one GUID go in two transactions, so that
 * the second meets the first's committed row.
 */
export async function commitGuidCreations(
  trx: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  creations: readonly GuidChange[],
): Promise<boolean[]> {
  const guids = new Set<string>();
  for (const creation of creations) {
    const guid = creation.after.guid;
    if (creation.before.version !== 0) throw new VerqError("VERQ_UNEXPECTED", `guid ${guid} is not a creation`);
    if (guids.has(guid)) throw new VerqError("VERQ_UNEXPECTED", `guid ${guid} is claimed twice in one transaction`);
    guids.add(guid);
  }
  const written = await commitChanges(trx, dialect, guidStream(dialect), creations, { creations: "skip" });
  const won = new Set(written.map((change) => change.after.guid));
  return creations.map((creation) => won.has(creation.after.guid));
}

/** A stream's entry once it has events: never the blank. */
export function stored(entry: GuidEntry): LedgerEntry {
  if (entry.state === "NEW") throw new VerqError("VERQ_UNEXPECTED", `guid ${entry.guid} has no events`);
  return entry;
}

/** The `ledger` row of one change: inserted for a creation, else rewritten only while still at the version decided on. */
async function writeLedgerRow(
  trx: Kysely<VerqDatabase>,
  dialect: StoreDialect,
  before: GuidEntry,
  after: LedgerEntry,
): Promise<void> {
  const row = entryToRow(after);
  if (before.version === 0) {
    await executeTemplate(
      trx,
      dialect,
      "ledger.insert",
      (param) =>
        ledgerDb(trx)
          .insertInto("ledger")
          .values(Object.fromEntries(Object.keys(row).map((column) => [column, param(column)])) as LedgerRow),
      row,
    );
    return;
  }
  const result = await executeTemplate(
    trx,
    dialect,
    "ledger.update",
    (param) =>
      ledgerDb(trx)
        .updateTable("ledger")
        .set({
          state: param<string>("state"),
          code: param<string>("code"),
          response: param<string | null>("response"),
          attempts: param<number>("attempts"),
          updated_at: param<number>("updated_at"),
          version: param<number>("version"),
        })
        .where("guid", "=", param<string>("guid"))
        .where("version", "=", param<number>("before_version")),
    { ...row, before_version: before.version },
  );
  if (Number(result.numAffectedRows ?? 0) !== 1) throw new VersionConflict(GUID_STREAM, before.guid, before.version);
}
