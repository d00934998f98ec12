import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";

/** The subscribers whose checkpoint is past the newest event of the log, with that newest position (0 for an empty log). */
export async function selectCheckpointsAhead(
  db: Kysely<VerqDatabase>,
): Promise<{ name: string; position: number; newest: number }[]> {
  const newest = await db
    .selectFrom("events")
    .select((eb) => eb.fn.max("position").as("p"))
    .executeTakeFirst();
  const top = Number(newest?.p ?? 0);
  const rows = await db
    .selectFrom("subscriptions")
    .select(["name", "position"])
    .where("position", ">", top)
    .orderBy("name")
    .execute();
  return rows.map((r) => ({ name: r.name, position: Number(r.position), newest: top }));
}
