import { MESSAGE_STATES, type MessageState } from "@verq/core";
import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";
import { messageDb } from "./messageTables.ts";

/** What the database knows of the file queue. */
export interface MessageStats {
  /** Rows in `processed`. */
  readonly processed: number;
  /** Messages stopped by the `processed` primary key. */
  readonly duplicates: number;
  /** Message streams by state. */
  readonly byState: Readonly<Record<MessageState, number>>;
}

/** Counts of `processed`, duplicates and message streams by state. */
export async function selectMessageStats(db: Kysely<VerqDatabase>): Promise<MessageStats> {
  const m = messageDb(db);
  const processed = await m
    .selectFrom("processed")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  const duplicates = await m
    .selectFrom("message_duplicates")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  const states = await m
    .selectFrom("messages")
    .select(["state", (eb) => eb.fn.countAll<number>().as("n")])
    .groupBy("state")
    .execute();
  const byState = Object.fromEntries(MESSAGE_STATES.map((s) => [s, 0])) as Record<MessageState, number>;
  for (const row of states) byState[row.state as MessageState] = Number(row.n);
  return { processed: Number(processed.n), duplicates: Number(duplicates.n), byState };
}
