import { MAX_ATTEMPTS } from "./relay-scenario.ts";
import { RelayDied, type RelayWorld } from "./relay-world.ts";

/** An operator runs `verq relay reprocess --max-attempts` (SPEC G6); the relay may die mid-way. */
export async function reprocessAction(world: RelayWorld): Promise<void> {
  try {
    await world.reprocess({ maxAttempts: MAX_ATTEMPTS });
  } catch (error) {
    if (!(error instanceof RelayDied)) throw error;
  }
}
