/**
 * The two job-queue methods a `JobWorker` uses to work from the jobs it holds, keyed by symbols
 * that only this package holds: a round that decides its outcomes from the held states
 * (`finishAndClaim` with `HeldJobs`), a heartbeat that returns the job as it left it, and
 * whether the store writes rounds in parallel (the worker's default `rounds`). Not
 * part of the public API: a held state must be one the store returned, never a caller's object.
 */
export const HELD_ROUND = Symbol("verq.heldRound");
export const EXTEND_LEASE = Symbol("verq.extendLease");
export const PARALLEL_WRITES = Symbol("verq.parallelWrites");
