import type { MessageErrorReason } from "./message.types.ts";

/** The stream type under which file-queue message events are stored. */
export const MESSAGE_STREAM = "message";

/**
 * A consumer's claim of the file (SPEC F1, the atomic rename inbox → processing): inbox →
 * processing. The file ledger records it in the same transaction as the message's outcome;
 * each claim has its own `claimId`, which every later move of this claim must present.
 */
export interface MessageClaimed {
  readonly type: "message.claimed";
  /** `recovered`: the file was taken over from `processing/`, left there by a consumer that died. */
  readonly data: {
    readonly claimId: string;
    /** The consumer holding the claim (`pid@host`). */
    readonly owner: string;
    /** The file's name in the inbox. */
    readonly file: string;
    readonly recovered: boolean;
    readonly at: number;
  };
}
/**
 * A valid message recorded (SPEC F3): processing → done. Written in the transaction that
 * inserted its row into `processed` (with the user's handler, if any), under the current claim.
 */
export interface MessageRecorded {
  readonly type: "message.recorded";
  /**
   * The row written to `processed`: the values of the profile's roles (idempotency key, group,
   * sequence, amount) and the whole message as JSON text. `file` is its name in `done/`.
   */
  readonly data: {
    readonly claimId: string;
    readonly key: string;
    readonly group: string;
    readonly sequence: number;
    readonly amount: number | null;
    readonly message: string;
    readonly file: string;
    readonly at: number;
  };
}
/**
 * A valid message whose idempotency key was already in `processed` (SPEC F3): processing →
 * done, with no row and no business work. The database constraint decided, not a lookup.
 */
export interface MessageDuplicated {
  readonly type: "message.duplicated";
  /** The `processed` primary key refused the key: it was recorded by an earlier message. */
  readonly data: { readonly claimId: string; readonly key: string; readonly file: string; readonly at: number };
}
/**
 * A message quarantined (SPEC F2, F5): processing → error with its reason, never back to the
 * inbox by itself, so a poison message does not block the queue. `detail` names fields and
 * byte counts, never field values.
 */
export interface MessageRejected {
  readonly type: "message.rejected";
  /** `file` is its name in `error/`. */
  readonly data: {
    readonly claimId: string;
    readonly reason: MessageErrorReason;
    readonly detail: string;
    readonly file: string;
    readonly at: number;
  };
}
/** A file moved back from `error/` to `inbox/` (SPEC F8): error → inbox, ready for a new claim. */
export interface MessageReplayed {
  readonly type: "message.replayed";
  /**
   * Back from `error/` to `inbox/` under `file`. `by`: `command` when `files replay` recorded
   * it, `observed` when a consumer found the file back in the inbox (moved by hand, or replayed
   * without a database) and recorded the move it had not seen.
   */
  readonly data: { readonly file: string; readonly by: "command" | "observed"; readonly at: number };
}

/** Every fact recorded about a message. Names are namespaced `message.*` strings. */
export type MessageEvent = MessageClaimed | MessageRecorded | MessageDuplicated | MessageRejected | MessageReplayed;

/** The `type` of a {@link MessageEvent}: what the `type` column of a message's stored event may hold. */
export type MessageEventType = MessageEvent["type"];

/** Typed creators: the only place event type strings are spelled. */
export const messageEvents = {
  claimed: (data: MessageClaimed["data"]): MessageClaimed => ({ type: "message.claimed", data }),
  recorded: (data: MessageRecorded["data"]): MessageRecorded => ({ type: "message.recorded", data }),
  duplicated: (data: MessageDuplicated["data"]): MessageDuplicated => ({ type: "message.duplicated", data }),
  rejected: (data: MessageRejected["data"]): MessageRejected => ({ type: "message.rejected", data }),
  replayed: (data: MessageReplayed["data"]): MessageReplayed => ({ type: "message.replayed", data }),
} as const;

/** All message event type names, for validation of stored rows. */
export const MESSAGE_EVENT_TYPES: readonly MessageEventType[] = [
  "message.claimed",
  "message.recorded",
  "message.duplicated",
  "message.rejected",
  "message.replayed",
];
