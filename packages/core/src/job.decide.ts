import type { Decision, MachineExecution } from "./decider.ts";
import type { JobCommand } from "./job.commands.ts";
import { JOB_STREAM, type JobEvent } from "./job.events.ts";
import { evolveJob } from "./job.evolve.ts";
import { jobMachine, type JobMachine, type JobRefusal } from "./job.machine.ts";
import { newJob, type Job, type JobStreamState } from "./job.types.ts";
import { defineVerqStream, type StreamDefinition } from "./stream-definition.ts";

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

/** The job stream as verq declares it: the same parts and checks as a service's `defineStream`. */
export type JobStreamDefinition = StreamDefinition<JobStreamState, JobRefusal, JobCommand, JobEvent>;

/**
 * Declares the job stream over `machine` (the real {@link jobMachine} unless a test passes a
 * variant made with `jobMachine.provide(...)`), through the path every stream type is declared by
 * (`execution`: see {@link MachineExecution}).
 */
export function defineJobStream(machine: JobMachine = jobMachine, execution: MachineExecution = "table"): JobStreamDefinition {
  return defineVerqStream<JobStreamState, JobRefusal, JobCommand, JobEvent>({
    name: JOB_STREAM,
    machine,
    field: "job",
    initial: (id) => newJob(id),
    evolve: evolveJob,
    unhandled: "not-claimable",
    execution,
  });
}

/** The job stream's definition over the real machine: what the store, `verq events` and the checks read it by. */
export const jobStreamDefinition: JobStreamDefinition = defineJobStream();

/** The decider of {@link defineJobStream}`(machine, execution)`: what the job queue runs. */
export function createJobDecider(machine: JobMachine = jobMachine, execution: MachineExecution = "table"): JobDecider {
  // Narrowed to `after: Job`: see JobDecision.
  return defineJobStream(machine, execution).decider as JobDecider;
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
export const decideJob: JobDecider = jobStreamDefinition.decider as JobDecider;
