import { RECOVER_AFTER_MS } from "./relay-scenario.ts";
import type { RelayWorld } from "./relay-world.ts";

/**
 * The recovery sweep of a (re)started relay: RECEIVED → FAILED, SENT → UNKNOWN once older than
 * the limit. Safe with live relays around: a live relay's SENT entry moved to UNKNOWN is
 * settled by the inquiry, and one whose claim turned FAILED is never sent (the machine refuses
 * RECEIVED → SENT).
 */
export async function recoverAction(world: RelayWorld): Promise<void> {
  await world.relay.recover(RECOVER_AFTER_MS);
}
