import { LOCK_EVENT_TYPES, LOCK_STREAM, coerceError, evolveLock, newLock, type LockEvent, type OperatorLock } from "@verq/core";
import { streamName } from "./finding.ts";
import type { StreamTypeCheck } from "./stream-check.ts";

/** One operator lock's stream folded so far. */
export interface LockStreamAudit {
  readonly name: string;
  lock: OperatorLock;
  broken: boolean;
}

/**
 * Operator lock streams (type `operator`): the fold with `evolveLock`, which the store loads a
 * lock with, over events of the lock's own types. A lock has no projection table (the store
 * reads its last event), so there are no rows to compare and none to find orphaned.
 */
export const lockCheck: StreamTypeCheck<LockStreamAudit> = {
  streamType: LOCK_STREAM,
  begin: (name) => ({ name, lock: newLock(name), broken: false }),

  step(s, stored, report) {
    if (s.broken) return;
    const name = streamName(LOCK_STREAM, s.name);
    if (!(LOCK_EVENT_TYPES as readonly string[]).includes(stored.type)) {
      report("EVENT_INVALID", name, `v${stored.version} has the unknown type ${JSON.stringify(stored.type)}`);
      s.broken = true;
      return;
    }
    try {
      s.lock = evolveLock(s.lock, { type: stored.type, data: stored.data } as LockEvent);
    } catch (error) {
      report("EVENT_INVALID", name, `v${stored.version} ${stored.type}: ${coerceError(error).message}`);
      s.broken = true;
    }
  },

  settle: () => Promise.resolve(),
  orphans: () => Promise.resolve(),
};
