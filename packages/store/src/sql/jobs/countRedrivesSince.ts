import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";

/** How many redrives were recorded at or after `sinceMs` (the redrive rate limit's window). */
export async function countRedrivesSince(db: Kysely<VerqDatabase>, sinceMs: number): Promise<number> {
  const row = await db
    .selectFrom("redrives")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("at_ms", ">=", sinceMs)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
