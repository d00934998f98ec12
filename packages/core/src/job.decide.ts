import type { JobCommand } from "./job.commands.ts";
import { createInertScope } from "./machine-scope.ts";
import type { JobEvent } from "./job.events.ts";
import { jobMachine, type JobMachine, type JobRefusal } from "./job.machine.ts";
import type { Job } from "./job.types.ts";

/**
 * What the machine decided for one command: either the events to append, in order, with `job`
 * the fold of those events onto the job decided on (what the projection must hold after the
 * append); or a refusal, with nothing to write.
 */
export type JobDecision =
  | { readonly accepted: true; readonly job: Job; readonly events: readonly JobEvent[] }
  | { readonly accepted: false; readonly refusal: JobRefusal };

/** Decides one command against one job. Pure: no I/O, no clock, no randomness. */
export type JobDecider = (job: Job, command: JobCommand) => JobDecision;

/**
 * Builds a decider over `machine` (the real {@link jobMachine} unless a test passes a variant).
 *
 * It calls the machine's own pure `transition` with one reused inert actor scope: XState's
 * top-level `transition()` builds a throw-away actor per call, which costs about four times as
 * much, and assign-only machines need nothing from the scope. The snapshot is rebuilt from the
 * job with `resolveState`, so the machine, not the caller, holds every rule. It throws when
 * the machine's state and the fold of its events disagree: a broken variant fails loudly
 * instead of writing a projection its own events contradict.
 */
export function createJobDecider(machine: JobMachine = jobMachine): JobDecider {
  const scope = createInertScope(machine, placeholderJob);
  return (job, command) => {
    const snapshot = machine.resolveState({ value: job.state, context: { job, emitted: [], refusal: null } });
    const next = machine.transition(snapshot, command, scope);
    if (next.context.refusal !== null) return { accepted: false, refusal: next.context.refusal };
    if (next === snapshot || next.context.emitted.length === 0) return { accepted: false, refusal: "not-claimable" };
    if (next.value !== next.context.job.state) {
      throw new Error(`job machine ended in ${String(next.value)} but its events fold to ${next.context.job.state}`);
    }
    return { accepted: true, job: next.context.job, events: next.context.emitted };
  };
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
 * if (decision.accepted) append(decision.events); // and store decision.job as the projection
 * else console.log(decision.refusal); // e.g. "not-due": nothing is written
 */
export const decideJob: JobDecider = createJobDecider();
