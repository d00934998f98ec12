import type { Kysely } from "kysely";
import type { VerqDatabase } from "../../schema.ts";

/** The `processed` table (migration 002): one row per recorded message; `msg_id` is the PRIMARY KEY. */
export interface ProcessedTable {
  msg_id: string;
  order_no: string;
  seq: number;
  amount: number | null;
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
