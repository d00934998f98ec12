/**
 * Set a queue's global concurrency limit to `maxLeased` jobs leased at once, or remove it
 * (`null`). Refused as `unchanged` when the queue already has exactly that limit. A lower limit
 * than the jobs leased now takes nothing back: claims wait until the count falls below it.
 */
export interface QueueSetLimitCommand {
  readonly type: "queue.setLimit";
  readonly maxLeased: number | null;
  readonly now: number;
}

/** Everything an operator may ask of a queue; each is decided by `queueMachine`. */
export type QueueCommand = QueueSetLimitCommand;

/** Typed creators: the only place command type strings are spelled. */
export const queueCommands = {
  setLimit: (c: Omit<QueueSetLimitCommand, "type">): QueueSetLimitCommand => ({ type: "queue.setLimit", ...c }),
} as const;
