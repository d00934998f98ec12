import { createActor, type AnyStateMachine, type InputFrom } from "xstate";

/** The actor scope a machine's own `transition(snapshot, event, scope)` takes. */
export type MachineScope<TMachine extends AnyStateMachine> = Parameters<TMachine["transition"]>[2];

/**
 * One inert actor scope for a machine, built once and reused for every decision. XState's
 * top-level `transition()` builds a throw-away actor per call, which costs about four times as
 * much; assign-only machines need nothing from the scope, so every callback here does nothing.
 * `input` only has to satisfy the machine's input type; it is never decided on.
 */
export function createInertScope<TMachine extends AnyStateMachine>(
  machine: TMachine,
  input: InputFrom<TMachine>,
): MachineScope<TMachine> {
  const self = createActor(machine, { input });
  const scope = {
    self,
    id: "",
    sessionId: "",
    logger: () => {},
    defer: () => {},
    emit: () => {},
    stopChild: () => {},
    actionExecutor: () => {},
    system: self.system,
  };
  return scope;
}
