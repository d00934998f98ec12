import { purgeAction } from "./purge.action.ts";
import { recoverAction } from "./recover.action.ts";
import type { RelayAction } from "./relay-scenario.ts";
import type { RelayWorld } from "./relay-world.ts";
import { reprocessAction } from "./reprocess.action.ts";
import { resolveAction } from "./resolve.action.ts";
import { sendAction } from "./send.action.ts";

/** Runs one action of a phase. */
export function runAction(world: RelayWorld, action: RelayAction): Promise<void> {
  switch (action.kind) {
    case "send":
      return sendAction(world, action);
    case "resolve":
      return resolveAction(world);
    case "reprocess":
      return reprocessAction(world);
    case "purge":
      return purgeAction(world);
    case "recover":
      return recoverAction(world);
  }
}

/** A short label for the scheduler's report. */
export function describeAction(action: RelayAction): string {
  return action.kind === "send" ? `send g${action.guid} (${action.variant})` : action.kind;
}
