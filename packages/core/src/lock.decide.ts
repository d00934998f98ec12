import type { Decider, Decision, MachineExecution } from "./decider.ts";
import type { LockCommand } from "./lock.commands.ts";
import { LOCK_STREAM, type LockEvent } from "./lock.events.ts";
import { evolveLock } from "./lock.evolve.ts";
import { lockMachine, type LockMachine, type LockRefusal } from "./lock.machine.ts";
import { newLock, type OperatorLock } from "./lock.types.ts";
import { defineVerqStream, type StreamDefinition } from "./stream-definition.ts";

/** What the lock machine decided: the events and the lock they fold to, or the first refusal (see {@link Decision}). */
export type LockDecision = Decision<OperatorLock, LockEvent, LockRefusal, LockCommand["type"]>;

/** Decides commands, in order, against one operator lock through the lock machine (see {@link Decider}). */
export type LockDecider = Decider<OperatorLock, LockCommand, LockEvent, LockRefusal>;

/** The operator lock stream as verq declares it: the same parts and checks as a service's `defineStream`. */
export type LockStreamDefinition = StreamDefinition<OperatorLock, LockRefusal, LockCommand, LockEvent>;

/**
 * Declares the operator lock stream over `machine` (the real {@link lockMachine} unless a test passes a
 * variant), through the path every stream type is declared by.
 */
export function defineLockStream(
  machine: LockMachine = lockMachine,
  execution: MachineExecution = "table",
): LockStreamDefinition {
  return defineVerqStream<OperatorLock, LockRefusal, LockCommand, LockEvent>({
    name: LOCK_STREAM,
    machine,
    field: "lock",
    initial: newLock,
    evolve: evolveLock,
    unhandled: "unhandled",
    execution,
  });
}

/** The operator lock stream's definition over the real machine: what the store, `verq events` and the checks read it by. */
export const lockStreamDefinition: LockStreamDefinition = defineLockStream();

/**
 * Builds a decider over `machine` (the real {@link lockMachine} unless a test passes a variant
 * made with `lockMachine.provide(...)`), the decider of its
 * stream definition.
 */
export function createLockDecider(machine: LockMachine = lockMachine, execution: MachineExecution = "table"): LockDecider {
  return defineLockStream(machine, execution).decider;
}

/**
 * The decider over the real lock machine, which the store's operator locks use.
 *
 * @example
 * const decision = decideLock(lock, lockCommands.acquire({ owner: "ops-1:4242", leaseMs: 30_000, now }));
 * if (!decision.accepted && decision.refusal === "held") console.log(`held by ${lock.owner} since ${lock.since}`);
 */
export const decideLock: LockDecider = lockStreamDefinition.decider;
