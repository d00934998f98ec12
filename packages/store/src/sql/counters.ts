import { sql, type Kysely } from "kysely";
import type { VerqDatabase } from "../schema.ts";

/** Names of the operational counters. */
export type CounterName = "job.staleFinishesRefused" | "receiver.requests" | "receiver.effects";

/** Adds `by` to a counter, creating it at `by` (insert-or-update, portable to PostgreSQL). */
export async function bumpCounter(db: Kysely<VerqDatabase>, name: CounterName, by = 1): Promise<void> {
  await db
    .insertInto("counters")
    .values({ name, value: by })
    .onConflict((oc) => oc.column("name").doUpdateSet({ value: sql`counters.value + ${by}` }))
    .execute();
}

/** A counter's value; 0 when it was never bumped. */
export async function readCounter(db: Kysely<VerqDatabase>, name: CounterName): Promise<number> {
  const row = await db.selectFrom("counters").select("value").where("name", "=", name).executeTakeFirst();
  return row === undefined ? 0 : Number(row.value);
}
