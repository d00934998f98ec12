import { sql } from "kysely";
import type { MigrationStep } from "../migration-parts.ts";

/**
 * PostgreSQL's migration 010: ids before positions (see `dialect/postgres-positions.ts` for why
 * a reader needs them). The sequence's default is evaluated before the insert assigns the
 * transaction its id, so `verq_next_position()` asks for the id first. (No NOTIFY per insert: a
 * transaction that notifies takes a server-wide lock while it commits, which would make every
 * claim and finish commit one at a time. Subscribers hear the announcements enqueue and redrive
 * already make, and poll for the rest.)
 */
export const postgresSubscriptions: MigrationStep = async (db) => {
  const { rows } = await sql<{ seq: string }>`select pg_get_serial_sequence('events', 'position') as seq`.execute(db);
  const sequence = rows[0]?.seq;
  if (sequence === undefined) throw new Error("the events table has no position sequence");
  await sql`create function verq_next_position() returns bigint language plpgsql volatile as $$
      begin
        -- The transaction's id first: a snapshot then tells whether the holder of a position may still commit.
        perform pg_current_xact_id();
        return nextval(${sql.lit(sequence)}::regclass);
      end $$`.execute(db);
  await sql`alter table events alter column position set default verq_next_position()`.execute(db);
};
