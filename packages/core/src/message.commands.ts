import type { MessageErrorReason } from "./message.types.ts";

/**
 * What the consumer found in a claimed file, with the one outside fact the machine needs: for a
 * valid message, whether its row went into `processed` (`inserted`) or the `msg_id` primary key
 * refused it (SPEC F3: the constraint decides a duplicate, never a lookup). `file` is the name
 * the file was given in `done/` or `error/`.
 */
export type MessageVerdictFacts =
  | {
      readonly kind: "valid";
      /** True when the insert into `processed` went in; false when the primary key refused the key. */
      readonly inserted: boolean;
      /** The idempotency key (`msg_id` in the course's profile). */
      readonly key: string;
      /** The ordering group (`order_no`). */
      readonly group: string;
      /** The sequence number within the group (`seq`). */
      readonly sequence: number;
      readonly amount: number | null;
      /** The whole message as JSON text. */
      readonly message: string;
      readonly file: string;
    }
  | {
      readonly kind: "invalid";
      readonly reason: MessageErrorReason;
      /** Field names and byte counts, never field values. */
      readonly detail: string;
      readonly file: string;
    };

/**
 * Settle one claimed file (SPEC F1–F3, F8): the claim and its outcome, decided as one. The
 * machine decides what is written from the message's state: a new stream is opened only under
 * its first claim's id and a file name; a message back in the inbox is claimed again; one in
 * `error` under the same name was moved back by hand, so the move is recorded first (replayed,
 * `observed`); then the verdict settles it as recorded, duplicate (`inserted` false) or rejected
 * with a known reason. Refused as `already-settled` when this claim settled the message before
 * (a consumer died after the commit), `already-done`, `stale-claim` (another claim holds it),
 * `other-file`, `stream-id-mismatch`, `bad-file-name` or `unknown-reason`. Like every command,
 * it carries `now`, because time is an input.
 */
export interface MessageSettleCommand {
  readonly type: "message.settle";
  /** The claim's id, unique per claim; a new stream is named after it. */
  readonly claimId: string;
  /** The consumer that holds the claim (`pid@host`). */
  readonly owner: string;
  /** The file's name in the inbox. */
  readonly file: string;
  /** True when the file was taken over from `processing/`, left there by a consumer that died. */
  readonly recovered: boolean;
  readonly verdict: MessageVerdictFacts;
  readonly now: number;
}
/**
 * Bring a quarantined message back by `files replay` (SPEC F8): error → inbox. Refused as
 * `not-in-error` in any other state, so a replay never touches a message that is waiting, in
 * work or done. (A move back seen only by the consumer is part of {@link MessageSettleCommand}.)
 */
export interface MessageReplayCommand {
  readonly type: "message.replay";
  /** The file's name in the inbox. */
  readonly file: string;
  readonly now: number;
}

/** Everything a consumer or `files replay` may ask of a message; each is decided by `messageMachine`. */
export type MessageCommand = MessageSettleCommand | MessageReplayCommand;

/** Typed creators: the only place command type strings are spelled. */
export const messageCommands = {
  settle: (c: Omit<MessageSettleCommand, "type">): MessageSettleCommand => ({ type: "message.settle", ...c }),
  replay: (c: Omit<MessageReplayCommand, "type">): MessageReplayCommand => ({ type: "message.replay", ...c }),
} as const;
