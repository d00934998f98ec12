import type { CoreOutcome, InquiryAnswer } from "./guid.answer.ts";

/**
 * Commands are what the relay and its operators ask of a ledger entry; the guid machine
 * accepts or refuses them. Every command carries `now`, because time is an input.
 */

/** The claimer hands a RECEIVED entry to the core: RECEIVED → SENT. */
export interface SendCommand {
  readonly type: "guid.send";
  readonly now: number;
}
/** The channel sent a GUID the ledger already holds (G3: what a repeated GUID gets). */
export interface RepeatCommand {
  readonly type: "guid.repeat";
  readonly fingerprint: string;
  /** A FAILED entry is sent again only while `attempts < maxAttempts`. */
  readonly maxAttempts: number;
  readonly now: number;
}
/** The core call of attempt `attempt` ended with `outcome`. */
export interface RecordCommand {
  readonly type: "guid.record";
  readonly attempt: number;
  readonly outcome: CoreOutcome;
  readonly now: number;
}
/** The core's inquiry API answered about an UNKNOWN entry (G5). */
export interface ResolveCommand {
  readonly type: "guid.resolve";
  readonly answer: InquiryAnswer;
  /** The core's longest processing time: a younger UNKNOWN may still be in flight. */
  readonly minAgeMs: number;
  readonly now: number;
}
/** An operator sends a FAILED entry again, with the same GUID and the stored request (G6). */
export interface ReprocessCommand {
  readonly type: "guid.reprocess";
  readonly maxAttempts: number;
  readonly now: number;
}
/** The recovery sweep after a relay died mid-request: RECEIVED → FAILED, SENT → UNKNOWN. */
export interface RecoverCommand {
  readonly type: "guid.recover";
  readonly olderThanMs: number;
  readonly now: number;
}
/** The retention purge of a DONE entry (G7). */
export interface PurgeCommand {
  readonly type: "guid.purge";
  readonly retentionMs: number;
  readonly resendWindowMs: number;
  readonly now: number;
}

export type GuidCommand =
  SendCommand | RepeatCommand | RecordCommand | ResolveCommand | ReprocessCommand | RecoverCommand | PurgeCommand;

/** Typed creators: the only place command type strings are spelled. */
export const guidCommands = {
  send: (c: Omit<SendCommand, "type">): SendCommand => ({ type: "guid.send", ...c }),
  repeat: (c: Omit<RepeatCommand, "type">): RepeatCommand => ({ type: "guid.repeat", ...c }),
  record: (c: Omit<RecordCommand, "type">): RecordCommand => ({ type: "guid.record", ...c }),
  resolve: (c: Omit<ResolveCommand, "type">): ResolveCommand => ({ type: "guid.resolve", ...c }),
  reprocess: (c: Omit<ReprocessCommand, "type">): ReprocessCommand => ({ type: "guid.reprocess", ...c }),
  recover: (c: Omit<RecoverCommand, "type">): RecoverCommand => ({ type: "guid.recover", ...c }),
  purge: (c: Omit<PurgeCommand, "type">): PurgeCommand => ({ type: "guid.purge", ...c }),
} as const;
