import type { LockEvent } from "./lock.events.ts";
import { newLock, type OperatorLock } from "./lock.types.ts";

/**
 * Folds one event into a lock. Pure. Every field but `name` and `version` comes from the event
 * itself, so `evolveLock(anything at version v - 1, last)` is the fold of the whole stream: the
 * store reads only a lock's last event. It does not check that the move is allowed (that is the
 * machine's job, before the event exists).
 */
export function evolveLock(lock: OperatorLock, event: LockEvent): OperatorLock {
  const base = { name: lock.name, token: event.data.token, updatedAt: event.data.at, version: lock.version + 1 };
  switch (event.type) {
    case "lock.acquired":
      return { ...base, state: "held", owner: event.data.owner, since: event.data.at, leaseUntil: event.data.leaseUntil };
    case "lock.extended":
      return { ...base, state: "held", owner: event.data.owner, since: event.data.since, leaseUntil: event.data.leaseUntil };
    case "lock.expired":
    case "lock.released":
      return { ...base, state: "free", owner: null, since: null, leaseUntil: null };
  }
}

/** The fold of a whole stream, in version order, from {@link newLock} with `name`. */
export function foldLock(name: string, events: readonly LockEvent[]): OperatorLock {
  return events.reduce(evolveLock, newLock(name));
}
