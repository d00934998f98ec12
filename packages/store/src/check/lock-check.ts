import { LOCK_EVENT_TYPES, LOCK_STREAM, evolveLock, newLock, type LockEvent, type OperatorLock } from "@verq/core";
import { streamName } from "./finding.ts";
import { evolveOrReport, typedEvent, type StreamTypeCheck } from "./stream-check.ts";

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
    const event = typedEvent<LockEvent>(stored, LOCK_EVENT_TYPES, name, report);
    const lock = event === undefined ? undefined : evolveOrReport(evolveLock, s.lock, event, stored, name, report);
    if (lock === undefined) s.broken = true;
    else s.lock = lock;
  },

  settle: () => Promise.resolve(),
  orphans: () => Promise.resolve(),
};
