import { GUID_STATES, VerqError, type GuidState, type LedgerEntry } from "@verq/core";
import { checkBatchSize } from "./jobs/job-context.ts";
import { decodeCursor, encodeCursor } from "./jobs/page-cursor.ts";
import { selectOldestDuePending } from "./sql/jobs/selectOldestDuePending.ts";
import { selectGuidEntriesByState } from "./sql/ledger/selectGuidEntries.ts";
import type { VerqStore } from "./store.ts";

/** The ledger states an operator looks after by default: the entries a person must settle. */
export const OPEN_LEDGER_STATES: readonly GuidState[] = ["UNKNOWN", "FAILED"];

/** A page of {@link OperatorPages.ledger}: its entries and the cursor of the next page, `null` on the last one. */
export interface LedgerPage {
  readonly entries: LedgerEntry[];
  readonly next: string | null;
}

/**
 * Reads for an operator's pages that the services do not page themselves: the ledger entries of
 * some states page by page, and each queue's earliest due pending job. Nothing is written.
 */
export class OperatorPages {
  readonly #store: VerqStore;

  constructor(store: VerqStore) {
    this.#store = store;
  }

  /**
   * One keyset page of the ledger entries in `states` (UNKNOWN and FAILED unless told), oldest
   * change first (ties by GUID), after the page whose `next` was `after`, on the
   * `ledger_state_updated` index. A state that is not a GUID state, a bad limit or a cursor this
   * listing did not give is `VERQ_INVALID_ARGUMENT`.
   */
  async ledger(states: readonly GuidState[] = OPEN_LEDGER_STATES, after: string | null, limit: number): Promise<LedgerPage> {
    checkBatchSize(limit);
    for (const state of states) {
      if (!(GUID_STATES as readonly unknown[]).includes(state)) {
        throw new VerqError("VERQ_INVALID_ARGUMENT", `a ledger state is one of ${GUID_STATES.join(", ")}`);
      }
    }
    const keys = after === null ? null : decodeCursor(after, "ledger", ["number", "text"]);
    const cursor = keys === null ? null : { updatedAt: keys[0] as number, guid: keys[1] as string };
    const entries = await selectGuidEntriesByState(this.#store.db, states, limit + 1, cursor);
    const page = entries.slice(0, limit);
    const last = page.at(-1);
    const next = entries.length > limit && last !== undefined ? encodeCursor("ledger", [last.updatedAt, last.guid]) : null;
    return { entries: page, next };
  }

  /** Per queue with pending jobs, when its earliest pending job is (or was) due, in ms since the epoch. */
  async oldestDuePending(): Promise<Map<string, number>> {
    return selectOldestDuePending(this.#store.db);
  }
}
