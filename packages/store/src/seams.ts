import type { GuidDecider, JobDecider, MessageDecider, ScheduleDecider } from "@verq/core";
import type { FileLedgerOptions } from "./file-ledger.ts";
import type { GuidLedgerOptions } from "./guid-ledger.ts";
import type { GuidChange } from "./streams/guid-stream.ts";
import type { JobQueueOptions } from "./job-queue.ts";
import type { selectClaimCandidates } from "./sql/jobs/selectClaimCandidates.ts";
import type { SchedulesOptions } from "./schedules.ts";
import type { EventPositions } from "./dialect/event-positions.ts";
import type { EventSubscriptionsOptions } from "./subscriptions.ts";
import type { VerqStore } from "./store.ts";

/**
 * The key under which verq's own mutation tests hand a queue or a ledger a broken variant of
 * one of its parts. The public option types do not name it: production code never sets it,
 * and a service cannot set it by accident. Only the `with…` helpers below write it.
 */
const INTERNALS = Symbol.for("verq.internals");

/**
 * How a claim decides the owners of new GUIDs: commits `creations` (what the guid machine decided
 * from each GUID's blank: NEW → RECEIVED; one per GUID) and returns, for each, `true` when this
 * call owns the GUID, `false` when another call had created it. The ledger's own is one
 * transaction with one insert-or-nothing for all of them (`commitGuidCreations`, SPEC G4), run
 * for the claims that arrived together (group commit) and only after a read found no entry; the
 * relay mutants pass one that trusts that read (lookup-then-insert) to prove the suite catches it.
 */
export type GuidClaimer = (store: VerqStore, creations: readonly GuidChange[]) => Promise<readonly boolean[]>;

/**
 * How a claim reads its candidates, in the order it offers them to the job machine: the store's
 * own is `selectClaimCandidates` (expired leases first, then higher priority, due time and
 * enqueue order). The order is the query's, not a guard's, so the jobs mutants pass one that
 * reorders it to prove the property suite catches a claim out of order.
 */
export type ClaimCandidates = typeof selectClaimCandidates;

/** The parts of a `JobQueue` a mutation test may replace. */
export interface JobQueueSeams {
  readonly decider?: JobDecider | undefined;
  readonly claimCandidates?: ClaimCandidates | undefined;
}

/** The parts of a `GuidLedger` a mutation test may replace. */
export interface GuidLedgerSeams {
  readonly decider?: GuidDecider | undefined;
  readonly claimer?: GuidClaimer | undefined;
}

/** The parts of a `FileLedger` a mutation test may replace. */
export interface FileLedgerSeams {
  readonly decider?: MessageDecider | undefined;
}

/** The seams an options object carries; none for options built by a service. */
export function seamsOf<S extends object>(options: object): Partial<S> {
  return (options as { readonly [INTERNALS]?: Partial<S> })[INTERNALS] ?? {};
}

function withSeams<O extends object>(options: O, seams: object): O {
  return { ...options, [INTERNALS]: { ...seamsOf(options), ...seams } };
}

/** Queue options whose queue decides with `decider` instead of the job machine (the real one when undefined). */
export const withJobDecider = <O extends JobQueueOptions>(options: O, decider: JobDecider | undefined): O =>
  withSeams(options, { decider } satisfies JobQueueSeams);

/** Queue options whose queue decides and reads claim candidates with the given variants (the real ones where undefined). */
export const withJobSeams = <O extends JobQueueOptions>(options: O, seams: JobQueueSeams): O => withSeams(options, seams);

/** Ledger options whose ledger decides and claims with the given variants (the real ones where undefined). */
export const withGuidSeams = <O extends GuidLedgerOptions>(options: O, seams: GuidLedgerSeams): O => withSeams(options, seams);

/** File ledger options whose ledger decides with `decider` instead of the message machine (the real one when undefined). */
export const withMessageDecider = <O extends FileLedgerOptions>(options: O, decider: MessageDecider | undefined): O =>
  withSeams(options, { decider } satisfies FileLedgerSeams);

/** The parts of a `Schedules` a mutation test may replace. */
export interface SchedulesSeams {
  readonly decider?: ScheduleDecider | undefined;
}

/** Schedules options whose schedules decide with `decider` instead of the schedule machine (the real one when undefined). */
export const withScheduleDecider = <O extends SchedulesOptions>(options: O, decider: ScheduleDecider | undefined): O =>
  withSeams(options, { decider } satisfies SchedulesSeams);

/**
 * How a subscription delivers a batch: `handle` hands it to the subscriber, `checkpoint` moves
 * the subscriber's checkpoint past it. The store's own calls `checkpoint` only once `handle`
 * resolved (at least once); the subscription mutants save first to prove the tests catch it.
 */
export type SubscriptionDelivery = (handle: () => Promise<void>, checkpoint: () => Promise<void>) => Promise<void>;

/** The parts of an `EventSubscriptions` a mutation test may replace. */
export interface SubscriptionSeams {
  readonly deliver?: SubscriptionDelivery | undefined;
  /** Whether no transaction can still commit at or below the mark: the dialect's `positionsSettled` when undefined. */
  readonly positionsSettled?: EventPositions["positionsSettled"] | undefined;
}

/** Subscriptions options whose subscriptions deliver and wait for settled positions with the given variants (the real ones where undefined). */
export const withSubscriptionSeams = <O extends EventSubscriptionsOptions>(options: O, seams: SubscriptionSeams): O =>
  withSeams(options, seams);
