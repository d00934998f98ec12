import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";

/** A subscriber's checkpoint as stored. */
export interface Checkpoint {
  readonly name: string;
  /** The position of the last event its handler accepted. */
  readonly position: number;
  /** When it last moved, in ms since the epoch. */
  readonly updatedAt: number;
}

/** The checkpoint of the subscriber `name`, or undefined when it has none yet. */
export async function selectCheckpoint(db: Kysely<VerqDatabase>, name: string): Promise<Checkpoint | undefined> {
  const row = await db.selectFrom("subscriptions").selectAll().where("name", "=", name).executeTakeFirst();
  return row === undefined ? undefined : { name: row.name, position: Number(row.position), updatedAt: Number(row.updated_at) };
}

/** Every subscriber's checkpoint, by name. */
export async function selectCheckpoints(db: Kysely<VerqDatabase>): Promise<Checkpoint[]> {
  const rows = await db.selectFrom("subscriptions").selectAll().orderBy("name").execute();
  return rows.map((row) => ({ name: row.name, position: Number(row.position), updatedAt: Number(row.updated_at) }));
}
