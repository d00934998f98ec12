import {
  createGuidDecider,
  createJobDecider,
  createMessageDecider,
  guidMachine,
  jobMachine,
  messageMachine,
  type GuidDecider,
  type JobDecider,
  type MessageDecider,
} from "@verq/core";

/**
 * Tables compiled from deliberately broken machines, one per kind of thing the compiler reads (a
 * state's own guard, a top-level fallback, an eventless transition's guard, a higher-order
 * guard's operand, an action's params); `table.spec.ts` asserts that the equivalence property
 * against the real machine fails on every one, so it would also fail on a compiler that misread
 * any of them.
 */
export const tableMutants = {
  job: {
    /** A state's own guard: the redrive rate limit (a moved rule) is never reached. */
    "redrive ignores the rate limit": createJobDecider(jobMachine.provide({ guards: { redriveLimitReached: () => false } })),
    /** A top-level fallback's guard: enqueue of a known id accepts any payload as the same. */
    "enqueue accepts a conflicting payload": createJobDecider(jobMachine.provide({ guards: { samePayload: () => true } })),
    /** An operand of `not(...)`: a held lease is never held. */
    "a held lease is taken over": createJobDecider(jobMachine.provide({ guards: { leaseExpired: () => true } })),
  } satisfies Record<string, JobDecider>,
  guid: {
    /** Purge's retention (a moved rule). */
    "purge ignores retention": createGuidDecider(guidMachine.provide({ guards: { olderThanRetention: () => true } })),
    /** Creation's id rule. */
    "receive takes any guid": createGuidDecider(guidMachine.provide({ guards: { validGuid: () => true } })),
  } satisfies Record<string, GuidDecider>,
  message: {
    /** An eventless transition's guard: a key the constraint refused is recorded anyway. */
    "a duplicate is recorded": createMessageDecider(messageMachine.provide({ guards: { isDuplicate: () => false } })),
    /** A guard of the initial state: a new stream takes any file name. */
    "a new stream takes any file name": createMessageDecider(messageMachine.provide({ guards: { plainFileName: () => true } })),
  } satisfies Record<string, MessageDecider>,
};
