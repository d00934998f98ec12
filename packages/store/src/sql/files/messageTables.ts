import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";

/**
 * The `processed` table (migration 002, SPEC F3): one row per recorded message, inserted in the
 * same transaction as the business work and the `message.recorded` event. `msg_id` is the
 * PRIMARY KEY, so the database, not an application check, stops a duplicate. The columns carry
 * the course's names; under another profile they hold the fields with those roles.
 */
export interface ProcessedTable {
  /** The idempotency key. */
  msg_id: string;
  /** The ordering group. */
  order_no: string;
  /** The sequence number within the group, as the message carried it. */
  seq: number;
  amount: number | null;
  /** When the row was inserted, in ms since the epoch. */
  processed_at: number;
  /** The message's file name in `done/`. */
  file: string;
  /** The message stream (file's life) that recorded it. */
  message_id: string;
  /** The whole message as JSON text. */
  message: string;
}

/** `message_duplicates`: one row per message stopped by the `processed` primary key. */
export interface MessageDuplicatesTable {
  message_id: string;
  msg_id: string;
  file: string;
  at_ms: number;
}

/** The `messages` projection: one row per file's life, the fold of its `message` stream. */
export interface MessagesTable {
  id: string;
  file: string;
  state: string;
  claim_id: string | null;
  owner: string | null;
  claims: number;
  reason: string | null;
  detail: string | null;
  msg_key: string | null;
  outcome: string | null;
  replays: number;
  created_at: number;
  updated_at: number;
  version: number;
}

/** The tables the file queue's SQL sees: the shared ones and its own three. */
export type MessageDatabase = VerqDatabase & {
  processed: ProcessedTable;
  message_duplicates: MessageDuplicatesTable;
  messages: MessagesTable;
};

/** A view of `db` (or a transaction) that knows the file queue's tables. */
export function messageDb(db: Kysely<VerqDatabase>): Kysely<MessageDatabase> {
  return db.withTables<{ processed: ProcessedTable; message_duplicates: MessageDuplicatesTable; messages: MessagesTable }>();
}
