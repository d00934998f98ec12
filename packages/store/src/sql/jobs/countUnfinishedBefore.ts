import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";

/**
 * How many pending and how many leased jobs were last changed at or before `cutoff`: what a prune
 * keeps unasked (the job machine refuses to prune an unfinished job, so the prune scan reads only
 * finished ones). One count per state, each through that state's partial index.
 */
export async function countUnfinishedBefore(
  db: Kysely<VerqDatabase>,
  cutoff: number,
): Promise<{ readonly pending: number; readonly leased: number }> {
  const count = async (state: "pending" | "leased") => {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from jobs
      where state = ${state} and updated_at <= ${cutoff}`.execute(db);
    return Number(rows[0]?.n ?? 0);
  };
  return { pending: await count("pending"), leased: await count("leased") };
}
