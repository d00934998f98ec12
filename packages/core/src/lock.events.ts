/** The stream type under which operator locks are stored (stream id: the lock's name). */
export const LOCK_STREAM = "operator";

/** The lock was taken (free → held, or held → held after `lock.expired`): a new holder with the next token. */
export interface LockAcquired {
  readonly type: "lock.acquired";
  readonly data: { readonly owner: string; readonly token: number; readonly leaseUntil: number; readonly at: number };
}
/** The holder's heartbeat: its lease now ends at `leaseUntil`. */
export interface LockExtended {
  readonly type: "lock.extended";
  readonly data: {
    readonly owner: string;
    readonly token: number;
    readonly since: number;
    readonly leaseUntil: number;
    readonly at: number;
  };
}
/**
 * The holder's lease ran out without a heartbeat (it crashed or stalled) and another owner
 * acquired the lock: held → free, written just before that owner's `lock.acquired`.
 */
export interface LockExpired {
  readonly type: "lock.expired";
  readonly data: { readonly owner: string; readonly token: number; readonly since: number; readonly at: number };
}
/** The holder released the lock: held → free. */
export interface LockReleased {
  readonly type: "lock.released";
  readonly data: { readonly owner: string; readonly token: number; readonly since: number; readonly at: number };
}

/**
 * Every fact recorded about an operator lock. Each carries everything its state after it needs
 * (owner, token, since, lease), so the lock is known from its stream's last event alone.
 */
export type LockEvent = LockAcquired | LockExtended | LockExpired | LockReleased;

/** The `type` of a {@link LockEvent}. */
export type LockEventType = LockEvent["type"];

/** Typed creators: the only place event type strings are spelled. */
export const lockEvents = {
  acquired: (data: LockAcquired["data"]): LockAcquired => ({ type: "lock.acquired", data }),
  extended: (data: LockExtended["data"]): LockExtended => ({ type: "lock.extended", data }),
  expired: (data: LockExpired["data"]): LockExpired => ({ type: "lock.expired", data }),
  released: (data: LockReleased["data"]): LockReleased => ({ type: "lock.released", data }),
} as const;

/** All lock event type names, for validation of stored rows. */
export const LOCK_EVENT_TYPES: readonly LockEventType[] = ["lock.acquired", "lock.extended", "lock.expired", "lock.released"];
