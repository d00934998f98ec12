import { createMachineDecider, type Decision, type MachineExecution } from "./decider.ts";
import type { JobCommand } from "./job.commands.ts";
import type { JobEvent } from "./job.events.ts";
import { jobMachine, type JobMachine, type JobRefusal } from "./job.machine.ts";
import { newJob, type Job, type JobStreamState } from "./job.types.ts";

/**
 * What the job machine decided: the events and the job they fold to, or a refusal (see
 * {@link Decision}). `after` is always a {@link Job}: an accepted decision folds at least one
 * event, and every event makes a job.
 */
export type JobDecision = Decision<Job, JobEvent, JobRefusal, JobCommand["type"]>;

/**
 * Decides commands against one job stream through the job machine: from {@link newJob} (version
 * 0) for an id with no events, else from the job (a `Decider` over {@link JobStreamState}).
 */
export type JobDecider = (state: JobStreamState, ...commands: readonly JobCommand[]) => JobDecision;

/**
 * Builds a decider over `machine` (the real {@link jobMachine} unless a test passes a variant
 * made with `jobMachine.provide(...)`), on the one command path of {@link createMachineDecider} (`execution`: see {@link MachineExecution}).
 */
export function createJobDecider(machine: JobMachine = jobMachine, execution: MachineExecution = "table"): JobDecider {
  const placeholder: JobStreamState = newJob("placeholder");
  // Narrowed to `after: Job`: see JobDecision.
  return createMachineDecider({ machine, field: "job", placeholder }, "not-claimable", execution) as JobDecider;
}

/**
 * The decider over the real job machine, which the job queue uses unless a test passes a variant.
 *
 * @example
 * const created = decideJob(newJob("order-1"), jobCommands.enqueue({ payload, maxAttempts: 5, deadline, availableAt: now, orderingKey: null, now }));
 * const decision = decideJob(job, jobCommands.claim({ owner: "worker-1", leaseMs: 30_000, now }));
 * if (decision.accepted) append(decision.events); // and store decision.after as the projection
 * else console.log(decision.refusal); // e.g. "not-due": nothing is written
 */
export const decideJob: JobDecider = createJobDecider();
