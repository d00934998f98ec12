import type { Message, MessageErrorReason, MessageOutcome, MessageState } from "@verq/core";
import type { MessagesTable } from "./messageTables.ts";

/** A `messages` row for `message`. */
export function messageToRow(message: Message): MessagesTable {
  return {
    id: message.id,
    ...mutableMessageColumns(message),
    created_at: message.createdAt,
  };
}

/** Every column a later event may change. */
export function mutableMessageColumns(message: Message): Omit<MessagesTable, "id" | "created_at"> {
  return {
    file: message.file,
    state: message.state,
    claim_id: message.claimId,
    owner: message.owner,
    claims: message.claims,
    reason: message.reason,
    detail: message.detail,
    msg_key: message.key,
    outcome: message.outcome,
    replays: message.replays,
    updated_at: message.updatedAt,
    version: message.version,
  };
}

/** The message a `messages` row holds. */
export function rowToMessage(row: MessagesTable): Message {
  return {
    id: row.id,
    file: row.file,
    state: row.state as MessageState,
    claimId: row.claim_id,
    owner: row.owner,
    claims: Number(row.claims),
    reason: row.reason as MessageErrorReason | null,
    detail: row.detail,
    key: row.msg_key,
    outcome: row.outcome as MessageOutcome | null,
    replays: Number(row.replays),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    version: Number(row.version),
  };
}
