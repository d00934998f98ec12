import { MIN_AGE_MS } from "./relay-scenario.ts";
import type { RelayWorld } from "./relay-world.ts";

/** An operator runs `verq relay resolve --min-age` with the core's longest processing time (SPEC G5). */
export async function resolveAction(world: RelayWorld): Promise<void> {
  await world.relay.resolve({ minAgeMs: MIN_AGE_MS });
}
