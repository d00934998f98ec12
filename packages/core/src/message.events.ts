import type { MessageErrorReason } from "./message.types.ts";

/** The stream type under which file-queue message events are stored. */
export const MESSAGE_STREAM = "message";

export interface MessageClaimed {
  readonly type: "message.claimed";
  /** `recovered`: the file was taken over from `processing/`, left there by a consumer that died. */
  readonly data: {
    readonly claimId: string;
    readonly owner: string;
    readonly file: string;
    readonly recovered: boolean;
    readonly at: number;
  };
}
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
export interface MessageDuplicated {
  readonly type: "message.duplicated";
  /** The `processed` primary key refused the key: it was recorded by an earlier message. */
  readonly data: { readonly claimId: string; readonly key: string; readonly file: string; readonly at: number };
}
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
