import { assign } from "xstate";
import {
  createJobDecider,
  decideJob,
  evolveJob,
  isValidRedriveNote,
  jobEvents,
  jobMachine,
  type Job,
  type JobDecider,
  type JobMachineContext,
} from "@verq/core";
import type { ClaimCandidates } from "@verq/store";
import { selectClaimCandidates } from "@verq/store/internal";

/**
 * Deliberately broken job machines. Each breaks one rule the property suite claims to guard;
 * `mutants.spec.ts` asserts that the suite fails on every one of them.
 */
export const jobMutants: Readonly<Record<string, JobDecider>> = {
  /**
   * J6 broken: a redrive starts the token again from 0, so an old token becomes valid again.
   * Caught as: enqueue(max=1) → claim → finish(retry) → dead(exhausted) → redrive: "[a tokens]
   * token after a redrive (it is never reset): expected 1, got 0".
   */
  "redrive resets the token": createJobDecider(
    jobMachine.provide({
      actions: {
        redrive: assign(({ context, event }) => {
          if (event.type !== "job.redrive") return {};
          const redriven = jobEvents.redriven({
            previousToken: context.job.token,
            note: event.note,
            deadline: event.deadline ?? event.now + event.originalWindowMs,
            at: event.now,
          });
          const job = { ...evolveJob(context.job, redriven), token: 0 };
          return { job, emitted: [...context.emitted, redriven] } satisfies Partial<JobMachineContext>;
        }),
      },
    }),
  ),
  /**
   * J4 broken: finish accepts any token, so a stale worker's late finish wins.
   * Caught as: claim(w1) → lease expires → claim(w1) again (token 2) → finish with the first
   * claim's token 1: "[b J4] finish(job-a, token 1, ok) was accepted; the job is leased with token 2".
   */
  "finish ignores the token": createJobDecider(jobMachine.provide({ guards: { tokenMatches: () => true } })),
  /**
   * J3 broken: the lease boundary belongs to the old holder (`now > leaseUntil` to expire).
   * Caught as: claim → clock exactly at leaseUntil → claim: the model expects the expired last
   * attempt to be quarantined, the mutant keeps the lease ("state expected dead, got leased").
   */
  "lease boundary off by one": createJobDecider(
    jobMachine.provide({
      guards: {
        leaseExpired: ({ context, event }) => context.job.leaseUntil !== null && event.now > context.job.leaseUntil,
      },
    }),
  ),
  /**
   * J3 broken: a claim hands out the job's current token instead of the next one.
   * Caught as: enqueue → claim: "[a tokens] claim of job-a handed out token 0 after tokens []".
   */
  "claim keeps the token": createJobDecider(
    jobMachine.provide({
      actions: {
        claim: assign(({ context, event }) => {
          if (event.type !== "job.claim") return {};
          const claimed = jobEvents.claimed({
            token: context.job.token,
            owner: event.owner,
            leaseUntil: event.now + event.leaseMs,
            at: event.now,
          });
          return {
            job: evolveJob(context.job, claimed),
            emitted: [...context.emitted, claimed],
          } satisfies Partial<JobMachineContext>;
        }),
      },
    }),
  ),
  /**
   * Clock jumps broken: a lease is taken as no longer held once the clock reads earlier than the
   * lease's last change (a "defensive" reading of a clock that went back), so after a backwards
   * jump its holder's heartbeat is refused and the worker gives up a lease that is still its own.
   * Equivalent to the real machine while time only moves forward: only a backwards jump catches it.
   * Caught as: enqueue → claim(w1, lease=1) → clockJump(-1 ms) → heartbeat(w1's claim):
   * "[heartbeat] heartbeat(job-a, token 1) at 1699999999999; job leased, token 1, lease until
   * 1700000000001 returned false" (seeds 1 and 2: within 102 runs).
   */
  "a backwards clock jump ends leases": createJobDecider(
    jobMachine.provide({
      guards: {
        leaseHeld: ({ context, event }) =>
          context.job.leaseUntil !== null && event.now < context.job.leaseUntil && event.now >= context.job.updatedAt,
      },
    }),
  ),
  /**
   * Lease renewal broken: a heartbeat with the current token revives a lease that has expired.
   * Caught as: claim(w1, lease=L) → clock at leaseUntil → heartbeat(w1's claim):
   * "[heartbeat] heartbeat(job-a, token 1) at … returned true".
   */
  "heartbeat revives an expired lease": createJobDecider(jobMachine.provide({ guards: { leaseHeld: () => true } })),
  /**
   * J4 broken: the deadline is checked before the attempt budget.
   * Caught as: enqueue(max=1, deadline=+1) → claim → finish(retry): "reason expected exhausted, got deadline",
   * or first by the decided check: "[decided finish] finish appended [job.died … deadline …]; the
   * machine decides [job.died … exhausted …]".
   */
  "deadline checked before the budget": createJobDecider(
    jobMachine.provide({
      guards: {
        attemptsExhausted: ({ context, event }) =>
          context.job.attempts >= context.job.maxAttempts &&
          !(event.type === "job.finish" && event.now + event.retryDelayMs >= context.job.deadline),
      },
    }),
  ),
  /**
   * J2 broken: an enqueue of an existing job with another payload is taken for a repeat (a no-op
   * answered `created: false`) instead of a conflict, so different work under one id is lost.
   * Caught as: enqueue(job-a, AxN) → enqueue(job-a, BxN): "[J2 conflict] expected
   * VERQ_ENQUEUE_CONFLICT, but it returned {"created":false,…}".
   */
  "enqueue accepts a conflicting payload": createJobDecider(jobMachine.provide({ guards: { samePayload: () => true } })),
  /**
   * J7 broken: a redrive ignores the rate limit, so a recovery can re-create the overload.
   * Caught as: two dead jobs (or one that died again) redriven within MODEL_REDRIVE_LIMIT's
   * window: "[J6 VERQ_REDRIVE_RATE_LIMITED] expected VERQ_REDRIVE_RATE_LIMITED, but it returned {…}".
   */
  "redrive ignores the rate limit": createJobDecider(jobMachine.provide({ guards: { redriveLimitReached: () => false } })),
  /**
   * Cancellation broken: the holder of a lease a cancel took away may still finish it, as if the
   * lease were held (the job still ends as the holder reports, `done` for `ok`).
   * Caught as: enqueue → claimMany(w1) → cancel → finish(w1's claim, ok): "[b J4] finish(job-a,
   * token 1, ok) was accepted; the job is dead with token 1".
   */
  "a cancelled lease still finishes": (state, ...commands) => {
    const [command] = commands;
    if (state.state === "dead" && state.reason === "cancelled" && state.token > 0 && command?.type === "job.finish") {
      const stillLeased: Job = {
        ...state,
        state: "leased",
        reason: null,
        deadSince: null,
        owner: "holder",
        leaseUntil: command.now + 1,
      };
      const decision = decideJob(stillLeased, ...commands);
      if (decision.accepted) return decision;
    }
    return decideJob(state, ...commands);
  },
  /**
   * Cancellation broken: a cancel takes any note, so free text reaches the audit trail.
   * Caught as: enqueue → cancel(job-a, "stop it"): "[cancel VERQ_INVALID_NOTE] expected
   * VERQ_INVALID_NOTE, but it returned {"cancelled":true,…}".
   */
  "cancel ignores the note rule": createJobDecider(
    jobMachine.provide({
      guards: {
        noteIsValid: ({ event }) =>
          event.type === "job.cancel" || (event.type === "job.redrive" && isValidRedriveNote(event.note)),
      },
    }),
  ),
  // No mutant lets a prune take an unfinished job: the prune scan offers the machine finished
  // jobs only (as a claim's search offers pending and leased ones), so no broken decision could
  // reach one through the store. The machine's `not-finished` refusal is held by core's tests.
  /**
   * Retention broken: the cutoff is exclusive (`updatedAt < cutoff`), so a job finished exactly
   * `doneOlderThan` ago is kept. Caught as: enqueue → claim → finish(ok) → prune(done>=0) in the
   * same millisecond: "[prune cutoff] … jobs removed (…): expected ["job-a"], got []".
   */
  "prune cutoff off by one": createJobDecider(
    jobMachine.provide({
      guards: {
        finishedAtOrBeforeCutoff: ({ context, event }) => {
          if (event.type !== "job.prune") return false;
          const cutoff = context.job.state === "dead" ? event.deadCutoff : event.doneCutoff;
          return cutoff !== null && context.job.updatedAt < cutoff;
        },
      },
    }),
  ),
  /**
   * Queue limit broken: a claim leases a pending job of a queue at its limit. The claim leaves full
   * queues out of its search, so only a batch that fills a queue midway reaches the guard.
   * Caught as: setQueueLimit(q, 1) → enqueue two jobs into q → claimMany(max ≥ 2): "[queue limit]
   * queue q went from 0 to 2 leased; its limit is 1".
   */
  "claim ignores the queue limit": createJobDecider(jobMachine.provide({ guards: { queueFull: () => false } })),
  /**
   * Retention broken: a finished job is pruned whatever its age. The store only looks at jobs
   * changed at or before the later of the two cutoffs, so it shows when they differ.
   * Caught as: enqueue → claim → finish(ok) → prune(done>=its age+1, dead>=0): "[prune cutoff]
   * … jobs removed (…): expected [], got ["job-a"]".
   */
  "prune ignores the cutoff": createJobDecider(jobMachine.provide({ guards: { finishedAtOrBeforeCutoff: () => true } })),
  /**
   * J5 broken: a failure report is not fenced by the token, so a worker that lost its lease
   * records its failure on the attempt of the worker that holds the job now.
   * Caught as: claim(w1) → lease expires → claimMany(w2) → fail(w1's claim): "[stale fail]
   * fail(job-a, token 1); the job is leased with token 2 returned true".
   */
  "a stale failure is recorded": createJobDecider(
    jobMachine.provide({
      guards: {
        tokenMatches: ({ context, event }) =>
          event.type === "job.fail" ||
          ((event.type === "job.finish" || event.type === "job.heartbeat") && event.token === context.job.token),
      },
    }),
  ),
};

/**
 * Kinds broken in both places that hold the rule: the machine's `kindNotHandled` guard and the
 * candidate search's kind filter (either alone still keeps a claimer to its kinds).
 * Caught as: enqueue(job-a, kind=mail) → claimKinds(kinds=[resize]): "[kinds] a claim of
 * kinds=[resize] handed out job-a, of kind mail".
 */
export const kindMutants: Readonly<Record<string, { decider: JobDecider; claimCandidates: ClaimCandidates }>> = {
  "claims ignore kinds": {
    decider: createJobDecider(jobMachine.provide({ guards: { kindNotHandled: () => false } })),
    claimCandidates: (db, dialect, now, limit, queues) => selectClaimCandidates(db, dialect, now, limit, queues),
  },
};

/**
 * Deliberately broken claim candidate queries, for the order the store decides (no guard does):
 * each breaks the claim order the property suite claims to guard.
 */
export const claimOrderMutants: Readonly<Record<string, ClaimCandidates>> = {
  /**
   * Priorities broken: due pending jobs are offered lowest priority first (expired leases still
   * first, equal priorities in the store's order).
   * Caught as: enqueue(job-b, priority=-1) → enqueue(job-a, priority=0) → claim: "[claim order]
   * claim handed out job-b (default, priority -1, …) while job-a (default, priority 0, …) was
   * claimable and not taken" (found after 20 runs with the CI seed).
   */
  "claim takes the lowest priority first": async (...args) => {
    const candidates = await selectClaimCandidates(...args);
    // Expired leases below any priority (priorities are -1000 to 1000), so they stay first.
    const rank = (job: Job) => (job.state === "leased" ? -10_000 : job.priority);
    return candidates.toSorted((a, b) => rank(a) - rank(b));
  },
};
