import { describe, expect, it } from "vitest";
import { decideJob, jobCommands, type Job, type JobCommand, type JobDecision, type JobRefusal } from "../src/index.ts";
import { pendingJob } from "./job-fixtures.ts";

function accepted(decision: JobDecision): Job {
  if (!decision.accepted) throw new Error(`refused: ${decision.refusal}`);
  return decision.after;
}

// One job in each state it can have once enqueued: pending, leased (token 1), done and dead.
const pending = pendingJob();
const leased = accepted(decideJob(pending, jobCommands.claim({ owner: "A", leaseMs: 100, now: 1_000 })));
const done = accepted(decideJob(leased, jobCommands.finish({ token: 1, outcome: "ok", retryDelayMs: 0, now: 1_010 })));
const dead = accepted(decideJob(leased, jobCommands.finish({ token: 1, outcome: "permanent", retryDelayMs: 0, now: 1_010 })));
const JOBS = { pending, leased, done, dead } as const;

const NOW = 5_000;
const enqueue = (payload: Job["payload"], options: { queue?: string; priority?: number } = {}) =>
  jobCommands.enqueue({
    payload,
    maxAttempts: 3,
    deadline: NOW + 60_000,
    availableAt: NOW,
    orderingKey: null,
    now: NOW,
    ...options,
  });
const COMMANDS = {
  enqueueOtherQueue: enqueue({ quantity: 7 }, { queue: "other" }),
  enqueueOtherPriority: enqueue({ quantity: 7 }, { priority: 3 }),
  enqueueSame: enqueue({ quantity: 7 }),
  enqueueOtherPayload: enqueue({ quantity: 8 }),
  claim: jobCommands.claim({ owner: "B", leaseMs: 100, now: NOW }),
  finish: jobCommands.finish({ token: 1, outcome: "ok", retryDelayMs: 0, now: NOW }),
  heartbeat: jobCommands.heartbeat({ token: 1, leaseMs: 100, now: NOW }),
  redrive: jobCommands.redrive({
    note: "OPS-1",
    deadline: null,
    recentRedrives: 0,
    limit: { max: 50, windowMs: 60_000 },
    originalWindowMs: 60_000,
    now: NOW,
  }),
  prune: jobCommands.prune({ doneCutoff: NOW, deadCutoff: NOW, now: NOW }),
  cancel: jobCommands.cancel({ note: "OPS-1", now: NOW }),
} satisfies Record<string, JobCommand>;

/**
 * The machine's fallbacks: what a state with no transition of its own for a command answers.
 * Each is a refusal, as data, that writes nothing.
 */
const FALLBACKS: Record<keyof typeof JOBS, Partial<Record<keyof typeof COMMANDS, JobRefusal>>> = {
  pending: {
    enqueueOtherQueue: "payload-conflict",
    enqueueOtherPriority: "payload-conflict",
    enqueueSame: "already-enqueued",
    enqueueOtherPayload: "payload-conflict",
    finish: "not-leased",
    heartbeat: "not-leased",
    redrive: "not-dead",
    prune: "not-finished",
  },
  leased: {
    enqueueOtherQueue: "payload-conflict",
    enqueueOtherPriority: "payload-conflict",
    enqueueSame: "already-enqueued",
    enqueueOtherPayload: "payload-conflict",
    redrive: "not-dead",
    prune: "not-finished",
  },
  done: {
    enqueueOtherQueue: "payload-conflict",
    enqueueOtherPriority: "payload-conflict",
    enqueueSame: "already-enqueued",
    enqueueOtherPayload: "payload-conflict",
    claim: "not-claimable",
    finish: "not-leased",
    heartbeat: "not-leased",
    redrive: "not-dead",
    cancel: "not-cancellable",
  },
  dead: {
    enqueueOtherQueue: "payload-conflict",
    enqueueOtherPriority: "payload-conflict",
    enqueueSame: "already-enqueued",
    enqueueOtherPayload: "payload-conflict",
    claim: "not-claimable",
    finish: "not-leased",
    heartbeat: "not-leased",
    cancel: "not-cancellable",
  },
};

describe("jobMachine fallbacks: a command a state does not take is refused, with nothing written", () => {
  for (const [state, refusals] of Object.entries(FALLBACKS) as [keyof typeof JOBS, (typeof FALLBACKS)["pending"]][]) {
    it(`${state}: ${Object.keys(refusals).join(", ")}`, () => {
      const job = JOBS[state];
      expect(job.state).toBe(state);
      for (const [name, refusal] of Object.entries(refusals) as [keyof typeof COMMANDS, JobRefusal][]) {
        const command = COMMANDS[name];
        expect(decideJob(job, command), `${state} ${name}`).toEqual({ accepted: false, refusal, command: command.type });
      }
    });
  }

  it("the same job accepts what its own state takes: the fallbacks are only for the rest", () => {
    expect(decideJob(pending, COMMANDS.claim).accepted).toBe(true);
    expect(decideJob(leased, COMMANDS.heartbeat)).toMatchObject({ accepted: false, refusal: "lease-expired" });
    expect(accepted(decideJob(done, COMMANDS.prune)).state).toBe("done");
    expect(accepted(decideJob(dead, COMMANDS.redrive)).state).toBe("pending");
  });
});
