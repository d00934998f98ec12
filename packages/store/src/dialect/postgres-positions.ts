import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";
import type { EventPositions, PositionMark } from "./event-positions.ts";

/*
 * Why a PostgreSQL subscriber cannot simply read "every position above my checkpoint": positions
 * come from a sequence, which hands them out when an event is inserted, not when its transaction
 * commits. A transaction that took position 11 and commits after another one took 12 and
 * committed leaves a moment where 12 is visible and 11 is not; a reader that checkpoints 12 then
 * never sees 11. So a reader reads only up to a mark that is settled: the sequence's last value
 * (every position handed out so far), read *before* the reader takes a transaction id of its own,
 * the fence; once the oldest transaction still running is at or after that fence, every position
 * up to the mark is committed or rolled back for good.
 *
 * That holds only if a transaction has its id before it takes a position: the sequence's default
 * is evaluated before the insert assigns the id, so `verq_next_position()` asks for the id first
 * (migrations/postgres/010-subscriptions.ts).
 */

/**
 * The sequence's last value, then a transaction id of the reader's own, taken after it: every
 * holder of a position up to that value took its id before, so it is older than the fence. (A
 * snapshot's xmax would not do: it is one past the newest *completed* id, and a transaction that
 * took a newer id is running beyond it, in no snapshot's list.) Costs one id per mark.
 */
export async function markPostgresPositions(db: Kysely<VerqDatabase>): Promise<PositionMark> {
  const last = await sql<{
    position: number | null;
    recovery: boolean;
  }>`select pg_sequence_last_value(pg_get_serial_sequence('events', 'position')::regclass) as position, pg_is_in_recovery() as recovery`.execute(
    db,
  );
  // A replica takes no transaction id. It shows the primary's commits in their order, so the
  // newest position it shows is the mark; a transaction that took a lower position and commits
  // later shows up below it (see docs/operations.md on reading from a replica).
  if (last.rows[0]?.recovery === true) {
    const shown = await sql<{ position: number | null }>`select max(position) as position from events`.execute(db);
    return { position: Number(shown.rows[0]?.position ?? 0), fence: null };
  }
  // A separate statement, so that its id is assigned after the value above was read.
  const fence = await sql<{ xid: string }>`select pg_current_xact_id()::text as xid`.execute(db);
  return { position: Number(last.rows[0]?.position ?? 0), fence: fence.rows[0]?.xid ?? null };
}

/** True once no transaction older than the mark's fence is still running (the oldest running id is at or after it). */
export async function postgresPositionsSettled(db: Kysely<VerqDatabase>, mark: PositionMark): Promise<boolean> {
  if (mark.fence === null) return true;
  const { rows } = await sql<{
    settled: boolean;
  }>`select pg_snapshot_xmin(pg_current_snapshot()) >= ${mark.fence}::xid8 as settled`.execute(db);
  return rows[0]?.settled === true;
}

/** PostgreSQL's positions: a mark is the sequence's last value and a fence of transaction ids. */
export const postgresPositions: EventPositions = {
  markPositions: markPostgresPositions,
  positionsSettled: postgresPositionsSettled,
};
