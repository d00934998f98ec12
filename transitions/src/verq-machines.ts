import { guidMachine, jobMachine, lockMachine, messageMachine, queueMachine, scheduleMachine } from "@verq/core";
import type { AnyStateMachine } from "xstate";

/**
 * Every machine that decides a verq stream, by its id. A test holds this list to the
 * `*.machine.ts` files of the core, so a new machine is never left out of the coverage.
 */
export const ALL_MACHINES: readonly AnyStateMachine[] = [
  jobMachine,
  guidMachine,
  messageMachine,
  lockMachine,
  queueMachine,
  scheduleMachine,
];
