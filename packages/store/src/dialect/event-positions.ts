import type { Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/**
 * The positions of the event log handed out when it was taken ({@link EventPositions.markPositions}),
 * and what must end before no transaction can still commit an event at or below `position`.
 */
export interface PositionMark {
  /** The highest position handed out so far (committed or not). */
  readonly position: number;
  /** The engine's token for "every writer in flight then": null when none was. */
  readonly fence: string | null;
}

/**
 * When a reader of the event log may move past a position for good: a reader that stops at a
 * settled mark never skips an event that commits later.
 */
export interface EventPositions {
  /**
   * Marks the positions handed out so far. On SQLite, whose one writer commits before the next
   * takes a position, every committed event is settled: the mark is the whole log and has no
   * fence. On PostgreSQL, where a transaction that commits later may hold a smaller position than
   * one already visible, the mark is the sequence's last value and the transactions in flight.
   */
  markPositions(db: Kysely<VerqDatabase>): Promise<PositionMark>;
  /**
   * True once no transaction can commit an event at or below `mark.position` any more: every
   * one in flight at the mark has ended (PostgreSQL: the oldest transaction still running is
   * younger than the mark's fence).
   */
  positionsSettled(db: Kysely<VerqDatabase>, mark: PositionMark): Promise<boolean>;
}
