import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";

/**
 * One problem in a group's sequence (SPEC F6), found from the stored `seq` values, never from
 * processing times: a sequence number stored twice or more (by messages with different keys),
 * or one missing between the start and the highest stored.
 */
export interface OrderProblem {
  /** The group (`order_no`). */
  readonly group: string;
  readonly kind: "duplicate" | "missing";
  /** The sequence number (`seq`) stored twice, or missing. */
  readonly sequence: number;
}

/**
 * The result of an order check: at most `limit` problems, ordered by group then sequence, and
 * whether more were left out. No problems means `OK` (SPEC F6).
 */
export interface OrderCheck {
  readonly problems: readonly OrderProblem[];
  readonly truncated: boolean;
}

/**
 * SPEC F6: within each `order_no`, sequence numbers stored twice or more (by different
 * messages) and sequence numbers missing from `start` up to the highest one stored. It
 * compares the stored `seq` values, never processing times. Gaps are found with one window
 * query (each distinct `seq` against the one before it) and expanded here, so a wide gap costs
 * one row of SQL; at most `limit` problems are returned, in order of group and sequence.
 */
export async function checkMessageOrder(db: Kysely<VerqDatabase>, start: number, limit: number): Promise<OrderCheck> {
  const duplicates = await sql<{ order_no: string; seq: number }>`
    select order_no, seq from processed group by order_no, seq having count(*) > 1`.execute(db);
  const gaps = await sql<{ order_no: string; prev: number | null; seq: number }>`
    select order_no, prev, seq from (
      select order_no, seq, lag(seq) over (partition by order_no order by seq) as prev
      from (select distinct order_no, seq from processed) as distinct_seqs
    ) as ordered where seq - coalesce(prev, ${start - 1}) > 1`.execute(db);

  const problems: OrderProblem[] = duplicates.rows.map((r) => ({
    group: r.order_no,
    kind: "duplicate",
    sequence: Number(r.seq),
  }));
  let truncated = false;
  for (const gap of gaps.rows) {
    const from = gap.prev === null ? start : Number(gap.prev) + 1;
    const to = Number(gap.seq) - 1;
    // Each gap can add at most `limit + 1` lines: enough to fill the page and to know it overflowed.
    for (let s = from; s <= to && s - from <= limit; s++) problems.push({ group: gap.order_no, kind: "missing", sequence: s });
  }
  problems.sort((a, b) =>
    a.group < b.group ? -1 : a.group > b.group ? 1 : a.sequence - b.sequence || a.kind.localeCompare(b.kind),
  );
  if (problems.length > limit) {
    truncated = true;
    problems.length = limit;
  }
  return { problems, truncated };
}
