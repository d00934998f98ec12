import { GUID_CODES } from "./guid.codes.ts";
import type { GuidEvent } from "./guid.events.ts";
import { newGuidEntry, type GuidEntry, type LedgerEntry } from "./guid.types.ts";

/**
 * Folds one event into a ledger entry. Pure. `guid.received` creates the entry from the GUID's
 * blank ({@link newGuidEntry}, state `NEW`); every other event needs the entry it applies to, and
 * both mistakes throw. It does not check that the move is allowed (that is the machine's job,
 * before the event exists). Each event adds 1 to `version` and sets `updatedAt` to its `at`.
 * The `ledger` row is, by definition, the fold of the GUID's stream. The `code` column follows
 * the state: `E903` while RECEIVED or SENT, the core's code when DONE, `E901` when UNKNOWN,
 * `E902` when FAILED.
 */
export function evolveGuid(entry: GuidEntry, event: GuidEvent): LedgerEntry {
  if (event.type === "guid.received") {
    if (entry.state !== "NEW") throw new Error(`guid ${entry.guid} is already received`);
    const d = event.data;
    return {
      guid: d.guid,
      state: "RECEIVED",
      code: GUID_CODES.inProgress,
      request: d.request,
      response: null,
      fingerprint: d.fingerprint,
      attempts: 0,
      createdAt: d.at,
      updatedAt: d.at,
      version: 1,
    };
  }
  if (entry.state === "NEW") throw new Error(`${event.type} before guid.received`);
  const base = { ...entry, updatedAt: event.data.at, version: entry.version + 1 };
  switch (event.type) {
    case "guid.sent":
      return { ...base, state: "SENT", code: GUID_CODES.inProgress, attempts: event.data.attempt };
    case "guid.done":
      return { ...base, state: "DONE", code: event.data.code, response: event.data.response };
    case "guid.unknown":
      return { ...base, state: "UNKNOWN", code: GUID_CODES.unknown };
    case "guid.failed":
      return { ...base, state: "FAILED", code: GUID_CODES.notSent };
    case "guid.purged":
      // Never stored in the stream: the entry and its events are deleted together.
      return base;
  }
}

/** The fold of a whole stream, in version order; `null` for an empty one. Throws as {@link evolveGuid} does. */
export function foldGuid(events: readonly GuidEvent[]): LedgerEntry | null {
  let entry: GuidEntry = newGuidEntry("");
  for (const event of events) entry = evolveGuid(entry, event);
  return entry.state === "NEW" ? null : entry;
}
