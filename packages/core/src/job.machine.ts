import { assign, not, setup } from "xstate";
import { canonicalJson } from "./json.ts";
import { isValidRedriveNote } from "./redrive-note.ts";
import type { FinishCommand, HandledKinds, JobCommand, RedriveCommand } from "./job.commands.ts";
import { evolveJob } from "./job.evolve.ts";
import { jobEvents, type JobEvent } from "./job.events.ts";
import type { DeadReason, JobStreamState } from "./job.types.ts";
import { DEFAULT_QUEUE, isQueueFull } from "./queue.types.ts";

/**
 * Why the machine refused a command. Refusals are data (the machine stays where it was and no
 * event is emitted); the store turns them into a `false`, a no-op or a coded error:
 * - enqueue of an existing job: `already-enqueued` (the same canonical payload, queue and
 *   priority), else `payload-conflict`;
 * - claim, finish, heartbeat or redrive of a stream with no job: `unknown-job`;
 * - claim: `queue-full` (pending, and the job's queue has `maxLeased` jobs leased),
 *   `not-due` (pending, `availableAt > now`), `lease-held` (leased, `now < leaseUntil`),
 *   `not-claimable` (done or dead), `kind-not-handled` (the job's kind is not one the claimer
 *   handles: it stays for one that does);
 * - fail (a failure whose effect is unknown): `stale-token`, `not-leased`, `unknown-job`;
 * - finish and heartbeat: `stale-token` (not the current token), `not-leased`, and for a
 *   heartbeat `lease-expired` (`now >= leaseUntil`);
 * - redrive: `not-dead`, `invalid-note` (not a ticket id), `invalid-deadline` (not after `now`),
 *   `rate-limited` (the window's redrives reach the limit);
 * - enqueue of an id whose job was pruned (its archive row is in the blank state): `archived-id`;
 * - prune: `not-finished` (pending or leased: never pruned), `too-recent` (finished after the
 *   cutoff), `dead-kept` (dead, and no dead cutoff given), `unknown-job`;
 * - cancel: `unknown-job`, `not-cancellable` (done or dead), `invalid-note` (not a ticket id).
 */
export type JobRefusal =
  | "already-enqueued"
  | "payload-conflict"
  | "unknown-job"
  | "not-due"
  | "queue-full"
  | "lease-held"
  | "not-claimable"
  | "kind-not-handled"
  | "stale-token"
  | "not-leased"
  | "lease-expired"
  | "not-dead"
  | "invalid-note"
  | "invalid-deadline"
  | "rate-limited"
  | "archived-id"
  | "not-finished"
  | "too-recent"
  | "dead-kept"
  | "not-cancellable";

/** The machine's context: the job (`new` before its first event), the events a transition emitted, and a refusal if any. */
export interface JobMachineContext {
  readonly job: JobStreamState;
  readonly emitted: readonly JobEvent[];
  readonly refusal: JobRefusal | null;
}

const record = (context: JobMachineContext, event: JobEvent): Partial<JobMachineContext> => ({
  job: evolveJob(context.job, event),
  emitted: [...context.emitted, event],
});

/** Whether a claimer that handles `kinds` handles a job of `kind` (`null`: a job without a kind). */
const handlesKind = (kinds: HandledKinds, kind: string | null): boolean =>
  kind === null ? kinds.kindless : kinds.names.includes(kind);

/** The failure a finish reports, with the attempt it ended, for the event it appends; nothing when it reports none. */
const failureOf = (context: JobMachineContext, event: FinishCommand) =>
  event.failure === undefined ? {} : { failure: event.failure, attempt: context.job.attempts };

/** A redrive's deadline: the one it names, else `now` plus the job's original window. */
const redriveDeadline = (command: RedriveCommand): number => command.deadline ?? command.now + command.originalWindowMs;

/**
 * The job lifecycle (SPEC J1–J7): new → pending by enqueue, pending → leased → done | dead,
 * dead → pending by redrive; done (and dead, when asked) pruned once finished at or before the
 * retention's cutoff, never pending or leased; an archived id is never enqueued again;
 * pending | leased → dead (`cancelled`) by an operator's cancel.
 *
 * Guards carry every rule: one job per id with one payload, queue and priority (an enqueue of
 * an existing job is refused, as a no-op or a conflict), a queue's global concurrency limit
 * (a pending job is not leased while its queue holds `maxLeased` leases), the lease boundary (`now == leaseUntil` is expired), the
 * fencing token, the attempt budget (checked before the deadline), the deadline
 * (`next >= deadline` dies), the operator's note (redrive and cancel) and the redrive rate limit. Facts from outside
 * (the clock, the backoff jitter, the count of recent redrives, a queue's leased count) arrive in the command. Actions
 * only assign: each appends the event it stands for to
 * `context.emitted` and folds it into `context.job` with {@link evolveJob}, so the projection is
 * the fold of the events by construction. No side effects: the same definition runs in the
 * store, in property tests and in the Stately visualizer.
 */
export const jobMachine = setup({
  types: {
    context: {} as JobMachineContext,
    events: {} as JobCommand,
    input: {} as JobStreamState,
  },
  guards: {
    // SPEC J2: keys in any order are the same payload.
    samePayload: ({ context, event }) =>
      event.type === "job.enqueue" && canonicalJson(context.job.payload) === canonicalJson(event.payload),
    // One job per id: another queue, priority or kind for the same id is not the same job.
    queuePriorityOrKindDiffers: ({ context, event }) =>
      event.type === "job.enqueue" &&
      ((event.queue ?? DEFAULT_QUEUE) !== context.job.queue ||
        (event.priority ?? 0) !== context.job.priority ||
        (event.kind ?? null) !== context.job.kind),
    // A claimer takes only the kinds it has handlers for; the others wait for one that has.
    kindNotHandled: ({ context, event }) =>
      event.type === "job.claim" && event.kinds !== undefined && !handlesKind(event.kinds, context.job.kind),
    isDue: ({ context, event }) => context.job.availableAt <= event.now,
    // The global concurrency limit of a queue: its leased count, read in the claim's transaction.
    queueFull: ({ event }) => event.type === "job.claim" && isQueueFull(event.queueLoad),
    leaseExpired: ({ context, event }) => context.job.leaseUntil !== null && event.now >= context.job.leaseUntil,
    leaseHeld: ({ context, event }) => context.job.leaseUntil !== null && event.now < context.job.leaseUntil,
    attemptsExhausted: ({ context }) => context.job.attempts >= context.job.maxAttempts,
    tokenMatches: ({ context, event }) =>
      (event.type === "job.finish" || event.type === "job.heartbeat" || event.type === "job.fail") &&
      event.token === context.job.token,
    outcomeIsOk: ({ event }) => event.type === "job.finish" && event.outcome === "ok",
    outcomeIsPermanent: ({ event }) => event.type === "job.finish" && event.outcome === "permanent",
    nextRunAtOrPastDeadline: ({ context, event }) =>
      event.type === "job.finish" && event.now + event.retryDelayMs >= context.job.deadline,
    // One note rule for every operator's command: a ticket id.
    noteIsValid: ({ event }) => (event.type === "job.redrive" || event.type === "job.cancel") && isValidRedriveNote(event.note),
    deadlineIsAfterNow: ({ event }) => event.type === "job.redrive" && redriveDeadline(event) > event.now,
    // SPEC J7: the redrives already in the window, counted by the caller in the same transaction.
    redriveLimitReached: ({ event }) => event.type === "job.redrive" && event.recentRedrives >= event.limit.max,
    // Retention: an id once pruned stays recognisable, and is never a new job again.
    isArchived: ({ context }) => context.job.state === "new" && context.job.archived !== null,
    deadKept: ({ context, event }) => event.type === "job.prune" && context.job.state === "dead" && event.deadCutoff === null,
    // A finished job's `updatedAt` is when it went done or dead: nothing follows but a redrive.
    finishedAtOrBeforeCutoff: ({ context, event }) => {
      if (event.type !== "job.prune") return false;
      const cutoff = context.job.state === "dead" ? event.deadCutoff : event.doneCutoff;
      return cutoff !== null && context.job.updatedAt <= cutoff;
    },
  },
  actions: {
    refuse: assign((_, params: { refusal: JobRefusal }) => ({ refusal: params.refusal })),
    enqueue: assign(({ context, event }) => {
      if (event.type !== "job.enqueue") return {};
      const { payload, maxAttempts, deadline, availableAt, orderingKey, now } = event;
      const queue = event.queue ?? DEFAULT_QUEUE;
      const priority = event.priority ?? 0;
      return record(
        context,
        jobEvents.enqueued({
          id: context.job.id,
          payload,
          maxAttempts,
          deadline,
          availableAt,
          orderingKey,
          queue,
          priority,
          ...(event.kind === undefined ? {} : { kind: event.kind }),
          ...(event.traceContext === undefined ? {} : { traceContext: event.traceContext }),
          at: now,
        }),
      );
    }),
    claim: assign(({ context, event }) => {
      if (event.type !== "job.claim") return {};
      return record(
        context,
        jobEvents.claimed({
          token: context.job.token + 1,
          owner: event.owner,
          leaseUntil: event.now + event.leaseMs,
          at: event.now,
        }),
      );
    }),
    expireLease: assign(({ context, event }) =>
      record(context, jobEvents.leaseExpired({ token: context.job.token, owner: context.job.owner, at: event.now })),
    ),
    extendLease: assign(({ context, event }) => {
      if (event.type !== "job.heartbeat") return {};
      return record(
        context,
        jobEvents.leaseExtended({ token: context.job.token, leaseUntil: event.now + event.leaseMs, at: event.now }),
      );
    }),
    complete: assign(({ context, event }) => record(context, jobEvents.completed({ token: context.job.token, at: event.now }))),
    die: assign(({ context, event }, params: { reason: DeadReason }) =>
      record(
        context,
        jobEvents.died({
          token: context.job.token,
          reason: params.reason,
          ...(event.type === "job.finish" ? failureOf(context, event) : {}),
          at: event.now,
        }),
      ),
    ),
    recordFailure: assign(({ context, event }) => {
      if (event.type !== "job.fail") return {};
      return record(
        context,
        jobEvents.failed({ token: context.job.token, attempt: context.job.attempts, failure: event.failure, at: event.now }),
      );
    }),
    scheduleRetry: assign(({ context, event }) => {
      if (event.type !== "job.finish") return {};
      return record(
        context,
        jobEvents.retryScheduled({
          token: context.job.token,
          availableAt: event.now + event.retryDelayMs,
          ...failureOf(context, event),
          at: event.now,
        }),
      );
    }),
    redrive: assign(({ context, event }) => {
      if (event.type !== "job.redrive") return {};
      return record(
        context,
        jobEvents.redriven({
          previousToken: context.job.token,
          note: event.note,
          deadline: redriveDeadline(event),
          at: event.now,
        }),
      );
    }),
    prune: assign(({ context, event }) => {
      const job = context.job;
      if (event.type !== "job.prune" || job.state === "new") return {};
      return record(
        context,
        jobEvents.pruned({
          state: job.state,
          token: job.token,
          reason: job.reason,
          finishedAt: job.updatedAt,
          doneCutoff: event.doneCutoff,
          deadCutoff: event.deadCutoff,
          at: event.now,
        }),
      );
    }),
    cancel: assign(({ context, event }) => {
      if (event.type !== "job.cancel") return {};
      return record(context, jobEvents.cancelled({ previousToken: context.job.token, note: event.note, at: event.now }));
    }),
  },
}).createMachine({
  id: "job",
  context: ({ input }) => ({ job: input, emitted: [], refusal: null }),
  initial: "new",
  // Fallbacks: a command that no state below accepts is refused, as data.
  on: {
    // One job per id (SPEC J2): the same payload again is the caller's no-op, another is a conflict.
    "job.enqueue": [
      { guard: "queuePriorityOrKindDiffers", actions: { type: "refuse", params: { refusal: "payload-conflict" } } },
      { guard: "samePayload", actions: { type: "refuse", params: { refusal: "already-enqueued" } } },
      { actions: { type: "refuse", params: { refusal: "payload-conflict" } } },
    ],
    "job.claim": { actions: { type: "refuse", params: { refusal: "not-claimable" } } },
    "job.finish": { actions: { type: "refuse", params: { refusal: "not-leased" } } },
    "job.fail": { actions: { type: "refuse", params: { refusal: "not-leased" } } },
    "job.heartbeat": { actions: { type: "refuse", params: { refusal: "not-leased" } } },
    "job.redrive": { actions: { type: "refuse", params: { refusal: "not-dead" } } },
    // Retention never takes a job that is not finished: pending and leased refuse it here.
    "job.prune": { actions: { type: "refuse", params: { refusal: "not-finished" } } },
    "job.cancel": { actions: { type: "refuse", params: { refusal: "not-cancellable" } } },
  },
  states: {
    // No events yet: only an enqueue creates the job.
    new: {
      on: {
        "job.enqueue": [
          { guard: "isArchived", actions: { type: "refuse", params: { refusal: "archived-id" } } },
          { target: "pending", actions: "enqueue" },
        ],
        "job.claim": { actions: { type: "refuse", params: { refusal: "unknown-job" } } },
        "job.finish": { actions: { type: "refuse", params: { refusal: "unknown-job" } } },
        "job.fail": { actions: { type: "refuse", params: { refusal: "unknown-job" } } },
        "job.heartbeat": { actions: { type: "refuse", params: { refusal: "unknown-job" } } },
        "job.redrive": { actions: { type: "refuse", params: { refusal: "unknown-job" } } },
        "job.prune": { actions: { type: "refuse", params: { refusal: "unknown-job" } } },
        "job.cancel": { actions: { type: "refuse", params: { refusal: "unknown-job" } } },
      },
    },
    pending: {
      on: {
        "job.claim": [
          { guard: "kindNotHandled", actions: { type: "refuse", params: { refusal: "kind-not-handled" } } },
          // The take-over of an expired lease (below) keeps the queue's leased count: not limited.
          { guard: "queueFull", actions: { type: "refuse", params: { refusal: "queue-full" } } },
          { guard: "isDue", target: "leased", actions: "claim" },
          { actions: { type: "refuse", params: { refusal: "not-due" } } },
        ],
        // A pending job never runs once cancelled: it leaves the claimable states for good.
        "job.cancel": [
          { guard: not("noteIsValid"), actions: { type: "refuse", params: { refusal: "invalid-note" } } },
          { target: "dead", actions: "cancel" },
        ],
      },
    },
    leased: {
      on: {
        "job.claim": [
          { guard: not("leaseExpired"), actions: { type: "refuse", params: { refusal: "lease-held" } } },
          { guard: "kindNotHandled", actions: { type: "refuse", params: { refusal: "kind-not-handled" } } },
          // The last attempt's worker lost its lease: the budget is spent, so quarantine.
          {
            guard: "attemptsExhausted",
            target: "dead",
            actions: ["expireLease", { type: "die", params: { reason: "exhausted" } }],
          },
          { target: "leased", reenter: true, actions: ["expireLease", "claim"] },
        ],
        "job.finish": [
          { guard: not("tokenMatches"), actions: { type: "refuse", params: { refusal: "stale-token" } } },
          { guard: "outcomeIsOk", target: "done", actions: "complete" },
          { guard: "outcomeIsPermanent", target: "dead", actions: { type: "die", params: { reason: "permanent" } } },
          // J4: the attempt budget is checked before the deadline.
          { guard: "attemptsExhausted", target: "dead", actions: { type: "die", params: { reason: "exhausted" } } },
          { guard: "nextRunAtOrPastDeadline", target: "dead", actions: { type: "die", params: { reason: "deadline" } } },
          { target: "pending", actions: "scheduleRetry" },
        ],
        // J5: a failure whose effect is unknown keeps the lease; it is only recorded.
        "job.fail": [
          { guard: not("tokenMatches"), actions: { type: "refuse", params: { refusal: "stale-token" } } },
          { actions: "recordFailure" },
        ],
        "job.heartbeat": [
          { guard: not("tokenMatches"), actions: { type: "refuse", params: { refusal: "stale-token" } } },
          { guard: not("leaseHeld"), actions: { type: "refuse", params: { refusal: "lease-expired" } } },
          { actions: "extendLease" },
        ],
        // The lease is taken away, the token kept: the holder's heartbeat and finish are refused from now on.
        "job.cancel": [
          { guard: not("noteIsValid"), actions: { type: "refuse", params: { refusal: "invalid-note" } } },
          { target: "dead", actions: "cancel" },
        ],
      },
    },
    // Pruned once finished at or before the cutoff. The job stays where it is: its stream and
    // row are deleted with the job.pruned decided here.
    done: {
      on: {
        "job.prune": [
          { guard: not("finishedAtOrBeforeCutoff"), actions: { type: "refuse", params: { refusal: "too-recent" } } },
          { actions: "prune" },
        ],
      },
    },
    dead: {
      on: {
        // Dead jobs wait for an operator: pruned only when a dead cutoff is asked for.
        "job.prune": [
          { guard: "deadKept", actions: { type: "refuse", params: { refusal: "dead-kept" } } },
          { guard: not("finishedAtOrBeforeCutoff"), actions: { type: "refuse", params: { refusal: "too-recent" } } },
          { actions: "prune" },
        ],
        "job.redrive": [
          { guard: not("noteIsValid"), actions: { type: "refuse", params: { refusal: "invalid-note" } } },
          { guard: not("deadlineIsAfterNow"), actions: { type: "refuse", params: { refusal: "invalid-deadline" } } },
          { guard: "redriveLimitReached", actions: { type: "refuse", params: { refusal: "rate-limited" } } },
          { target: "pending", actions: "redrive" },
        ],
      },
    },
  },
});

/** The machine's type, for variants built with `jobMachine.provide(...)`. */
export type JobMachine = typeof jobMachine;
