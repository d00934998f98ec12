import type { FinishOutcome } from "./job.types.ts";

/**
 * Commands are what a caller asks of a job; the machine accepts or refuses them. Every command
 * carries `now`, because time is an input.
 */
export interface ClaimCommand {
  readonly type: "job.claim";
  readonly owner: string;
  readonly leaseMs: number;
  readonly now: number;
}
export interface FinishCommand {
  readonly type: "job.finish";
  readonly token: number;
  readonly outcome: FinishOutcome;
  /** Backoff before the next attempt, drawn by the caller's policy and RNG; used only for `retry`. */
  readonly retryDelayMs: number;
  readonly now: number;
}
export interface HeartbeatCommand {
  readonly type: "job.heartbeat";
  readonly token: number;
  readonly leaseMs: number;
  readonly now: number;
}
export interface RedriveCommand {
  readonly type: "job.redrive";
  readonly note: string;
  readonly deadline: number;
  readonly now: number;
}

export type JobCommand = ClaimCommand | FinishCommand | HeartbeatCommand | RedriveCommand;

/** Typed creators: the only place command type strings are spelled. */
export const jobCommands = {
  claim: (c: Omit<ClaimCommand, "type">): ClaimCommand => ({ type: "job.claim", ...c }),
  finish: (c: Omit<FinishCommand, "type">): FinishCommand => ({ type: "job.finish", ...c }),
  heartbeat: (c: Omit<HeartbeatCommand, "type">): HeartbeatCommand => ({ type: "job.heartbeat", ...c }),
  redrive: (c: Omit<RedriveCommand, "type">): RedriveCommand => ({ type: "job.redrive", ...c }),
} as const;
