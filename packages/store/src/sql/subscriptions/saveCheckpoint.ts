import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";

/**
 * Moves the checkpoint of `name` to `position`, or creates it there: one upsert whose update is
 * guarded by `position < new position`, so a checkpoint never goes back, whoever writes it (a
 * second process under the same name, a late write after a restart). Returns true when it moved.
 */
export async function saveCheckpoint(db: Kysely<VerqDatabase>, name: string, position: number, at: number): Promise<boolean> {
  const result = await db
    .insertInto("subscriptions")
    .values({ name, position, updated_at: at })
    .onConflict((oc) =>
      oc
        .column("name")
        .doUpdateSet((eb) => ({ position: eb.ref("excluded.position"), updated_at: eb.ref("excluded.updated_at") }))
        .where("subscriptions.position", "<", position),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}
