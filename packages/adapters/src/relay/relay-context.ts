import { classifyCoreCall, type LedgerEntry } from "@verq/core";
import type { GuidLedger, VerqLogger } from "@verq/store";
import { failpoint } from "../failpoints.ts";
import { msSince } from "../log-fields.ts";
import type { CoreClient } from "./core-client.ts";

/**
 * The named crash boundaries of the relay (docs/failpoints.md):
 * - `relay.afterClaim`: the entry is RECEIVED, the core not yet called;
 * - `relay.afterCoreCall`: the core call ended, its outcome not yet recorded (the entry is SENT);
 * - `relay.afterRecord`: the outcome is recorded, the channel not yet answered.
 */
export type RelayBoundary = "relay.afterClaim" | "relay.afterCoreCall" | "relay.afterRecord";

/** What the relay's operations share: the ledger, the core and, optionally, a logger. */
export interface RelayContext {
  readonly ledger: GuidLedger;
  readonly core: CoreClient;
  readonly logger?: VerqLogger | undefined;
}

/**
 * Hands a SENT entry to the core and records the outcome (SPEC G4: the claim was written
 * before; the result is written after). Returns the entry as the ledger holds it afterwards —
 * when the record is refused (the entry moved on meanwhile), as it is. Nothing here catches:
 * a crash between the steps leaves the entry SENT, for the recovery sweep. Logs the transition
 * at debug: guid, attempt, `from` SENT, `to` the state recorded, the core call's `coreMs`.
 */
export async function deliver(context: RelayContext, entry: LedgerEntry): Promise<LedgerEntry> {
  const started = performance.now();
  const result = await context.core.transfer(entry.guid, entry.request);
  const coreMs = msSince(started);
  failpoint("relay.afterCoreCall" satisfies RelayBoundary);
  const change = await context.ledger.record(entry.guid, entry.attempts, classifyCoreCall(entry.guid, result));
  failpoint("relay.afterRecord" satisfies RelayBoundary);
  context.logger?.debug(
    { guid: entry.guid, attempt: entry.attempts, from: entry.state, to: change.entry.state, accepted: change.accepted, coreMs },
    "core called",
  );
  return change.entry;
}
