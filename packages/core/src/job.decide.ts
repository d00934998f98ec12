import { createMachineDecider, type Decider, type Decision } from "./decider.ts";
import type { JobCommand } from "./job.commands.ts";
import type { JobEvent } from "./job.events.ts";
import { jobMachine, type JobMachine, type JobRefusal } from "./job.machine.ts";
import type { Job } from "./job.types.ts";

/** What the job machine decided: the events and the job they fold to, or a refusal (see {@link Decision}). */
export type JobDecision = Decision<Job, JobEvent, JobRefusal, JobCommand["type"]>;

/** Decides commands against one job through the job machine (see {@link Decider}). */
export type JobDecider = Decider<Job, JobCommand, JobEvent, JobRefusal>;

/**
 * Builds a decider over `machine` (the real {@link jobMachine} unless a test passes a variant
 * made with `jobMachine.provide(...)`), on the one command path of {@link createMachineDecider}.
 */
export function createJobDecider(machine: JobMachine = jobMachine): JobDecider {
  return createMachineDecider({ machine, field: "job", placeholder: placeholderJob }, "not-claimable");
}

const placeholderJob: Job = {
  id: "placeholder",
  payload: null,
  state: "pending",
  token: 0,
  attempts: 0,
  maxAttempts: 1,
  deadline: 0,
  availableAt: 0,
  owner: null,
  leaseUntil: null,
  reason: null,
  deadSince: null,
  orderingKey: null,
  leaseExpiries: 0,
  enqueuedAt: 0,
  updatedAt: 0,
  version: 1,
};

/**
 * The decider over the real job machine, which the job queue uses unless a test passes a variant.
 *
 * @example
 * const decision = decideJob(job, jobCommands.claim({ owner: "worker-1", leaseMs: 30_000, now }));
 * if (decision.accepted) append(decision.events); // and store decision.after as the projection
 * else console.log(decision.refusal); // e.g. "not-due": nothing is written
 */
export const decideJob: JobDecider = createJobDecider();
