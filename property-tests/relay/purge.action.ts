import { RESEND_WINDOW_MS, RETENTION_MS } from "./relay-scenario.ts";
import type { RelayWorld } from "./relay-world.ts";

/** An operator runs `verq relay purge` with a retention longer than the channel's resend window (SPEC G7). */
export async function purgeAction(world: RelayWorld): Promise<void> {
  await world.relay.purge({ retentionMs: RETENTION_MS, resendWindowMs: RESEND_WINDOW_MS });
}
