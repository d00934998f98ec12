import type { MessageErrorReason } from "./message.types.ts";

/**
 * Commands are what a consumer (or `files replay`) asks of a message; the machine accepts or
 * refuses them. Every command carries `now`, because time is an input.
 */
export interface MessageClaimCommand {
  readonly type: "message.claim";
  readonly claimId: string;
  readonly owner: string;
  /** The file's name in the inbox. */
  readonly file: string;
  readonly recovered: boolean;
  readonly now: number;
}
export interface MessageRecordCommand {
  readonly type: "message.record";
  readonly claimId: string;
  /** Whether the insert into `processed` went in, or the primary key refused it. */
  readonly outcome: "recorded" | "duplicate";
  readonly key: string;
  readonly group: string;
  readonly sequence: number;
  readonly amount: number | null;
  readonly message: string;
  /** The file's name in `done/`. */
  readonly file: string;
  readonly now: number;
}
export interface MessageRejectCommand {
  readonly type: "message.reject";
  readonly claimId: string;
  readonly reason: MessageErrorReason;
  readonly detail: string;
  /** The file's name in `error/`. */
  readonly file: string;
  readonly now: number;
}
export interface MessageReplayCommand {
  readonly type: "message.replay";
  /** The file's name in the inbox. */
  readonly file: string;
  readonly by: "command" | "observed";
  readonly now: number;
}

export type MessageCommand = MessageClaimCommand | MessageRecordCommand | MessageRejectCommand | MessageReplayCommand;

/** Typed creators: the only place command type strings are spelled. */
export const messageCommands = {
  claim: (c: Omit<MessageClaimCommand, "type">): MessageClaimCommand => ({ type: "message.claim", ...c }),
  record: (c: Omit<MessageRecordCommand, "type">): MessageRecordCommand => ({ type: "message.record", ...c }),
  reject: (c: Omit<MessageRejectCommand, "type">): MessageRejectCommand => ({ type: "message.reject", ...c }),
  replay: (c: Omit<MessageReplayCommand, "type">): MessageReplayCommand => ({ type: "message.replay", ...c }),
} as const;
