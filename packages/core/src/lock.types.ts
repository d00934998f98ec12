/**
 * Whether an operator lock is taken: `free` (never taken, released, or taken over after its
 * holder's lease expired, for the instant before the new holder's event), or `held`.
 */
export type LockState = "free" | "held";

/**
 * One operator lock as the fold of its `lock.*` events, from {@link newLock}. A lock makes a
 * piece of operator work (a bulk redrive) run once at a time per store, whichever process or
 * host starts it: its holder names itself (`owner`), holds it until `leaseUntil` unless it sends a
 * heartbeat, and presents its fencing `token` to extend or release it. Each acquisition counts the
 * token up by 1; it is never reset, so a holder that lost its lease can never act as the new one.
 */
export interface OperatorLock {
  /** The stream id: what the lock guards, e.g. {@link BULK_REDRIVE_LOCK}. */
  readonly name: string;
  readonly state: LockState;
  /** Who holds it (e.g. `host:pid`); null when free. */
  readonly owner: string | null;
  /** The fencing token of the current (or last) holder; 0 before the first acquisition. */
  readonly token: number;
  /** When the current holder acquired it (ms since the epoch); null when free. */
  readonly since: number | null;
  /** The holder's lease: held while `now < leaseUntil`; null when free. */
  readonly leaseUntil: number | null;
  /** Time of the last event applied (0 while there is none). */
  readonly updatedAt: number;
  /** Version of the stream: the number of events applied. */
  readonly version: number;
}

/** The lock of `verq jobs redrive --all`: one bulk redrive at a time per store. */
export const BULK_REDRIVE_LOCK = "bulk-redrive";

/** The lock `name` before its first event: free, token 0, version 0. Never stored. */
export function newLock(name: string): OperatorLock {
  return { name, state: "free", owner: null, token: 0, since: null, leaseUntil: null, updatedAt: 0, version: 0 };
}
