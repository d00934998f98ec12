/**
 * Take the lock for `owner` until `now + leaseMs`. Accepted when it is free, or held by a holder
 * whose lease has run out (`now >= leaseUntil`: the boundary belongs to the next holder); the
 * token goes up by 1. Refused as `held` while another holder's lease runs.
 */
export interface LockAcquireCommand {
  readonly type: "lock.acquire";
  readonly owner: string;
  readonly leaseMs: number;
  readonly now: number;
}
/**
 * Extend the lease to `now + leaseMs`. Accepted only for the current token while the lease is
 * still held: `stale-token` for any other token, `lease-expired` at or past `leaseUntil`,
 * `not-held` when the lock is free.
 */
export interface LockHeartbeatCommand {
  readonly type: "lock.heartbeat";
  readonly token: number;
  readonly leaseMs: number;
  readonly now: number;
}
/**
 * Give the lock back. Accepted only for the current token (`stale-token` otherwise, `not-held`
 * when free), also after the lease ran out if nobody took the lock over meanwhile.
 */
export interface LockReleaseCommand {
  readonly type: "lock.release";
  readonly token: number;
  readonly now: number;
}

/** Everything an operator may ask of a lock; each is decided by `lockMachine`. */
export type LockCommand = LockAcquireCommand | LockHeartbeatCommand | LockReleaseCommand;

/** Typed creators: the only place command type strings are spelled. */
export const lockCommands = {
  acquire: (c: Omit<LockAcquireCommand, "type">): LockAcquireCommand => ({ type: "lock.acquire", ...c }),
  heartbeat: (c: Omit<LockHeartbeatCommand, "type">): LockHeartbeatCommand => ({ type: "lock.heartbeat", ...c }),
  release: (c: Omit<LockReleaseCommand, "type">): LockReleaseCommand => ({ type: "lock.release", ...c }),
} as const;
