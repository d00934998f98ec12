import {
  checkIdentifier,
  checkLeaseMs,
  checkToken,
  decideLock,
  lockCommands,
  newLock,
  systemClock,
  type Clock,
  type LockCommand,
  type LockDecision,
  type OperatorLock,
} from "@verq/core";
import { handleWithRetry } from "./command-path.ts";
import type { VerqStore } from "./store.ts";
import { lockStream } from "./streams/lock-stream.ts";

/** A lock as its holder holds it. */
export interface HeldLock {
  readonly name: string;
  readonly owner: string;
  /** The holder's fencing token: heartbeats and the release must present it. */
  readonly token: number;
  /** When the holder acquired it (ms since the epoch). */
  readonly since: number;
  readonly leaseUntil: number;
}

/** An acquire's answer: the lock, or the holder whose lease still runs (an expected outcome, not an error). */
export type AcquireResult =
  { readonly acquired: true; readonly lock: HeldLock } | { readonly acquired: false; readonly holder: HeldLock };

/** Settings of {@link OperatorLocks}. */
export interface OperatorLocksOptions {
  readonly clock?: Clock;
}

/**
 * Named operator locks (SPEC O1), so that a piece of operator work, such as a bulk redrive,
 * runs once at a time per store across processes and hosts. Every change is decided by the lock
 * machine and appended to the lock's `operator` stream: the machine holds the rules (free, or the
 * holder's lease expired; only the current token extends or releases), and the event log's
 * UNIQUE(stream, version) decides between two acquires that raced (the loser decides again and
 * finds the lock held). A holder that crashed is replaced once its lease runs out.
 *
 * @example
 * const locks = new OperatorLocks(store);
 * const got = await locks.acquire("bulk-redrive", `${hostname()}:${process.pid}`, 30_000);
 * if (!got.acquired) throw new Error(`held by ${got.holder.owner} since ${got.holder.since}`);
 * // … work, calling locks.heartbeat("bulk-redrive", got.lock.token, 30_000) and stopping when it returns null …
 * await locks.release("bulk-redrive", got.lock.token);
 */
export class OperatorLocks {
  readonly #store: VerqStore;
  readonly #clock: Clock;

  constructor(store: VerqStore, options: OperatorLocksOptions = {}) {
    this.#store = store;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * Takes lock `name` for `owner` until now + `leaseMs`, when it is free or its holder's lease
   * has run out (`now >= leaseUntil`); the token goes up by 1. Otherwise answers the holder.
   * Throws `VERQ_INVALID_ARGUMENT` or `VERQ_INVALID_LEASE` for bad input, changing nothing.
   */
  async acquire(name: string, owner: string, leaseMs: number): Promise<AcquireResult> {
    checkName(name);
    checkIdentifier(owner, "the lock owner", "VERQ_INVALID_ARGUMENT");
    checkLeaseMs(leaseMs);
    const { before, decision } = await this.#decide(name, (now) => lockCommands.acquire({ owner, leaseMs, now }));
    if (decision.accepted) return { acquired: true, lock: held(decision.after) };
    return { acquired: false, holder: held(before) };
  }

  /**
   * Extends the lease of the holder of `token` to now + `leaseMs`. Returns the lock, or `null`
   * when the lock is no longer this holder's (its lease ran out, another owner took it, or it
   * was released): the holder must stop.
   */
  async heartbeat(name: string, token: number, leaseMs: number): Promise<HeldLock | null> {
    checkName(name);
    checkToken(token);
    checkLeaseMs(leaseMs);
    const { decision } = await this.#decide(name, (now) => lockCommands.heartbeat({ token, leaseMs, now }));
    return decision.accepted ? held(decision.after) : null;
  }

  /** Gives lock `name` back; `true` when `token` held it, `false` (nothing changed) otherwise. */
  async release(name: string, token: number): Promise<boolean> {
    checkName(name);
    checkToken(token);
    const { decision } = await this.#decide(name, (now) => lockCommands.release({ token, now }));
    return decision.accepted;
  }

  /** The lock as it is now (free, token 0 and version 0 when it was never taken). */
  async get(name: string): Promise<OperatorLock> {
    checkName(name);
    return (await lockStream.load(this.#store.db, [name])).get(name) ?? newLock(name);
  }

  /** Load → decide → append, in one transaction; decided again when another writer appended first. */
  async #decide(name: string, command: (now: number) => LockCommand): Promise<{ before: OperatorLock; decision: LockDecision }> {
    const item = { id: name, commands: () => [command(this.#clock.now())] };
    return handleWithRetry(this.#store, lockStream, decideLock, item, newLock);
  }
}

function checkName(name: string): void {
  checkIdentifier(name, "a lock name", "VERQ_INVALID_ARGUMENT");
}

function held(lock: OperatorLock): HeldLock {
  const { name, owner, token, since, leaseUntil } = lock;
  if (owner === null || since === null || leaseUntil === null) throw new Error(`lock ${name} is not held`);
  return { name, owner, token, since, leaseUntil };
}
