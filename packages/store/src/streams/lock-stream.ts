import { LOCK_STREAM, evolveLock, newLock, type LockEvent, type OperatorLock } from "@verq/core";
import type { StreamProjection } from "../command-path.ts";
import { readLastEvent } from "../sql/events/readLastEvent.ts";

/**
 * How the store keeps operator locks on the one command path. A lock has no projection table:
 * each lock event carries the whole state after it (see {@link evolveLock}), so a lock is loaded
 * from its stream's last event alone, one indexed row however long the stream. Nothing else is
 * projected; the UNIQUE(stream_type, stream_id, version) of the event log is the only arbiter
 * between two acquires decided from the same version.
 */
export const lockStream: StreamProjection<OperatorLock, LockEvent> = {
  streamType: LOCK_STREAM,
  idOf: (lock) => lock.name,
  async load(trx, names) {
    const found = new Map<string, OperatorLock>();
    for (const name of names) {
      const last = await readLastEvent(trx, LOCK_STREAM, name);
      if (last === null) continue;
      const event = { type: last.type, data: last.data } as LockEvent;
      found.set(name, evolveLock({ ...newLock(name), version: last.version - 1 }, event));
    }
    return found;
  },
  project: () => Promise.resolve(),
};
