import { createMachineDecider, type Decider, type Decision, type MachineExecution } from "./decider.ts";
import type { LockCommand } from "./lock.commands.ts";
import type { LockEvent } from "./lock.events.ts";
import { lockMachine, type LockMachine, type LockRefusal } from "./lock.machine.ts";
import { newLock, type OperatorLock } from "./lock.types.ts";

/** What the lock machine decided: the events and the lock they fold to, or the first refusal (see {@link Decision}). */
export type LockDecision = Decision<OperatorLock, LockEvent, LockRefusal, LockCommand["type"]>;

/** Decides commands, in order, against one operator lock through the lock machine (see {@link Decider}). */
export type LockDecider = Decider<OperatorLock, LockCommand, LockEvent, LockRefusal>;

/**
 * Builds a decider over `machine` (the real {@link lockMachine} unless a test passes a variant
 * made with `lockMachine.provide(...)`), on the one command path of {@link createMachineDecider}.
 */
export function createLockDecider(machine: LockMachine = lockMachine, execution: MachineExecution = "table"): LockDecider {
  return createMachineDecider({ machine, field: "lock", placeholder: newLock("placeholder") }, "unhandled", execution);
}

/**
 * The decider over the real lock machine, which the store's operator locks use.
 *
 * @example
 * const decision = decideLock(lock, lockCommands.acquire({ owner: "ops-1:4242", leaseMs: 30_000, now }));
 * if (!decision.accepted && decision.refusal === "held") console.log(`held by ${lock.owner} since ${lock.since}`);
 */
export const decideLock: LockDecider = createLockDecider();
