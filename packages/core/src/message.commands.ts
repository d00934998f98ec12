import type { MessageErrorReason } from "./message.types.ts";

/**
 * Claim a message in the inbox for one consumer (SPEC F1): inbox → processing. Refused as
 * `in-processing`, `already-done` (a new file with a finished file's name starts a new stream)
 * or `in-error` (only a replay brings it back). Like every command, it carries `now`, because
 * time is an input.
 */
export interface MessageClaimCommand {
  readonly type: "message.claim";
  /** The claim's id, unique per claim; the record or reject that settles it must present the same one. */
  readonly claimId: string;
  /** The consumer that holds the claim (`pid@host`). */
  readonly owner: string;
  /** The file's name in the inbox. */
  readonly file: string;
  /** True when the file was taken over from `processing/`, left there by a consumer that died. */
  readonly recovered: boolean;
  readonly now: number;
}
/**
 * Settle a valid message after the insert into `processed` (SPEC F3): processing → done, as
 * `message.recorded` or `message.duplicated` by `outcome`. Refused as `stale-claim` unless
 * `claimId` is the message's current claim, and as `not-processing` in any other state.
 */
export interface MessageRecordCommand {
  readonly type: "message.record";
  readonly claimId: string;
  /** Whether the insert into `processed` went in, or the primary key refused it. */
  readonly outcome: "recorded" | "duplicate";
  /** The idempotency key (`msg_id` in the course's profile). */
  readonly key: string;
  /** The ordering group (`order_no`). */
  readonly group: string;
  /** The sequence number within the group (`seq`). */
  readonly sequence: number;
  readonly amount: number | null;
  /** The whole message as JSON text. */
  readonly message: string;
  /** The file's name in `done/`. */
  readonly file: string;
  readonly now: number;
}
/**
 * Quarantine a message (SPEC F2, F5): processing → error. Refused as `stale-claim` unless
 * `claimId` is the current claim, as `unknown-reason` for a reason not in
 * `MESSAGE_ERROR_REASONS`, and as `not-processing` in any other state.
 */
export interface MessageRejectCommand {
  readonly type: "message.reject";
  readonly claimId: string;
  readonly reason: MessageErrorReason;
  /** Field names and byte counts, never field values. */
  readonly detail: string;
  /** The file's name in `error/`. */
  readonly file: string;
  readonly now: number;
}
/**
 * Bring a quarantined message back (SPEC F8): error → inbox. Refused as `not-in-error` in any
 * other state, so a replay never touches a message that is waiting, in work or done.
 */
export interface MessageReplayCommand {
  readonly type: "message.replay";
  /** The file's name in the inbox. */
  readonly file: string;
  /**
   * `command` for `files replay`; `observed` when a consumer found the file back in the inbox and
   * records the move it had not seen.
   */
  readonly by: "command" | "observed";
  readonly now: number;
}

/** Everything a consumer or `files replay` may ask of a message; each is decided by `messageMachine`. */
export type MessageCommand = MessageClaimCommand | MessageRecordCommand | MessageRejectCommand | MessageReplayCommand;

/** Typed creators: the only place command type strings are spelled. */
export const messageCommands = {
  claim: (c: Omit<MessageClaimCommand, "type">): MessageClaimCommand => ({ type: "message.claim", ...c }),
  record: (c: Omit<MessageRecordCommand, "type">): MessageRecordCommand => ({ type: "message.record", ...c }),
  reject: (c: Omit<MessageRejectCommand, "type">): MessageRejectCommand => ({ type: "message.reject", ...c }),
  replay: (c: Omit<MessageReplayCommand, "type">): MessageReplayCommand => ({ type: "message.replay", ...c }),
} as const;
