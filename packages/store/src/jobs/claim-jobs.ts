import {
  DEFAULT_QUEUE,
  VerqError,
  checkHandledKinds,
  checkIdentifier,
  checkLeaseMs,
  checkQueueName,
  isQueueFull,
  jobCommands,
  type HandledKinds,
  type Job,
  type JobEvent,
  type JobState,
  type JobStreamState,
} from "@verq/core";
import type { Kysely } from "kysely";
import { commitChanges, WITNESSED, type StreamChange } from "../command-path.ts";
import type { VerqDatabase } from "../schema.ts";
import { selectQueueLoads } from "../sql/queues/selectQueueLoads.ts";
import { checkBatchSize, isArray, type JobContext } from "./job-context.ts";

/** How to claim. Every field has a default. */
export interface ClaimOptions {
  /** The lease of each job claimed; the queue's `defaultLeaseMs` when absent. */
  readonly leaseMs?: number;
  /** The named queues to claim from, at least one: `["default"]` when absent. */
  readonly queues?: readonly string[];
  /**
   * The kinds the claimer has handlers for: jobs of the kinds `names`, and jobs without a kind
   * when `kindless`. A job of another kind is not claimed (the job machine refuses it as
   * `kind-not-handled`, and the search leaves it out): it stays for a claimer that handles it.
   * Absent: every job, whatever its kind.
   */
  readonly kinds?: HandledKinds;
}

/** A claimed job: leased to the caller, with the fencing token it must present to finish. */
export type ClaimedJob = Job & { readonly state: "leased"; readonly owner: string; readonly leaseUntil: number };

/**
 * A lease that a claim found expired (SPEC J3): the job taken over with the next token
 * (`state` leased), or, when the expired lease was its last attempt, `dead(exhausted)`.
 */
export interface LeaseExpiry {
  readonly id: string;
  /** The token of the lease that expired. */
  readonly token: number;
  /** Who held it. */
  readonly owner: string | null;
  /** The job's state after the claim: `leased` (taken over) or `dead`. */
  readonly state: JobState;
}

/** The most queues one claim may name. */
export const MAX_CLAIM_QUEUES = 100;

/** A claim's options, checked. */
export interface CheckedClaim {
  readonly leaseMs: number;
  readonly queues: readonly string[];
  readonly kinds: HandledKinds | undefined;
}

/** What one claim transaction did: the jobs it leased, and the expired leases it found. */
export interface ClaimRound {
  readonly claimed: ClaimedJob[];
  readonly expired: LeaseExpiry[];
}

/** Checks a claim's owner, batch size and options before anything is read. */
export function checkClaim(context: JobContext, owner: string, max: number, options: ClaimOptions): CheckedClaim {
  checkIdentifier(owner, "the owner", "VERQ_INVALID_ARGUMENT");
  checkBatchSize(max);
  const leaseMs = checkLeaseMs(options?.leaseMs ?? context.defaultLeaseMs);
  const queues = checkClaimQueues(options?.queues ?? [DEFAULT_QUEUE]);
  return { leaseMs, queues, kinds: options?.kinds === undefined ? undefined : checkHandledKinds(options.kinds) };
}

/** The queues a claim names, checked (1 to {@link MAX_CLAIM_QUEUES} queue names) and without repeats. */
export function checkClaimQueues(queues: readonly string[]): readonly string[] {
  if (!isArray(queues) || queues.length === 0 || queues.length > MAX_CLAIM_QUEUES) {
    throw new VerqError("VERQ_INVALID_ARGUMENT", `queues must name 1 to ${MAX_CLAIM_QUEUES} queues`);
  }
  return [...new Set(queues.map(checkQueueName))];
}

/**
 * Claims up to `max` due jobs of `options.queues` for `owner` in one transaction (expired leases
 * first, then higher priority, then enqueue order), each with its own token and the same lease.
 * A queue with a limit gets no more leases than its free slots, counting this batch's grants.
 */
export async function claimJobs(context: JobContext, owner: string, max: number, options: ClaimOptions): Promise<ClaimedJob[]> {
  const claim = checkClaim(context, owner, max, options);
  return context.store.transaction(async (trx) => (await claimIn(context, trx, owner, max, claim)).claimed, undefined, WITNESSED);
}

/**
 * The claims of one transaction (SPEC J3): each candidate, in the order the candidate reader
 * gives, is decided by the job machine (a pending job due, or a leased one whose lease expired;
 * a full queue's `queueFull` guard; a kind the claimer does not handle, `kindNotHandled`) and the
 * accepted ones committed, until `max` are leased or none is left.
 */
export async function claimIn(
  context: JobContext,
  trx: Kysely<VerqDatabase>,
  owner: string,
  max: number,
  { leaseMs, queues, kinds }: CheckedClaim,
): Promise<ClaimRound> {
  const { store } = context;
  // The limited queues' turns and leased counts first: the count a limit is judged by must be
  // the one no other claimer can change before this transaction commits.
  const loads = await selectQueueLoads(trx, store.dialect, queues);
  // Read the clock once the write lock is held: time spent waiting for another process
  // must not be taken out of the lease being handed out.
  const now = context.clock.now();
  const unlimited = jobCommands.claim({ owner, leaseMs, ...(kinds === undefined ? {} : { kinds }), now });
  const claimed: ClaimedJob[] = [];
  const expired: LeaseExpiry[] = [];
  const hasRoom = (queue: string) => !isQueueFull(loads.get(queue));
  while (claimed.length < max) {
    // Full queues (core's isQueueFull) are left out of the search for pending jobs; the
    // machine's queueFull guard, the same rule, still decides each claim. Some candidates do not end leased (an expired last attempt goes
    // dead): ask again.
    const due = queues.filter(hasRoom);
    const asked = Math.max(8, max - claimed.length);
    const candidates = await context.claimCandidates(trx, store.dialect, now, asked, { expired: queues, due }, kinds);
    // Not `decideCandidates`: each claim's command carries the queue load that the grants before
    // it in this batch changed, the budget counts leases (a spent last attempt goes dead without
    // one), and the scan stops on what an acceptance freed, not on a refusal.
    const changes: StreamChange<JobStreamState, JobEvent>[] = [];
    // A spent lease quarantined here may free a slot of a queue this search left out: its due
    // jobs may outrank the pending candidates, so those wait for the next search.
    let freedLeftOut = false;
    for (const job of candidates) {
      if (claimed.length >= max || (freedLeftOut && job.state === "pending")) break;
      const load = loads.get(job.queue);
      const decision = context.decide(job, load === undefined ? unlimited : { ...unlimited, queueLoad: load });
      if (!decision.accepted) continue;
      changes.push({ before: job, after: decision.after, events: decision.events });
      if (decision.after.state === "leased") claimed.push(decision.after as ClaimedJob);
      if (job.state === "leased") {
        expired.push({ id: job.id, token: job.token, owner: job.owner, state: decision.after.state });
        if (decision.after.state !== "leased" && !due.includes(job.queue)) freedLeftOut = true;
      }
      // This batch's own grants count against the limit of the claims after them.
      if (load !== undefined) {
        const delta = (decision.after.state === "leased" ? 1 : 0) - (job.state === "leased" ? 1 : 0);
        loads.set(job.queue, { ...load, leased: load.leased + delta });
      }
    }
    if (changes.length === 0) break;
    await commitChanges(trx, store.dialect, context.jobs, changes);
    // Fewer candidates than asked: the search saw every one there was. Searching again finds
    // more only where this batch freed a slot of a queue it left out.
    if (candidates.length < asked && !freedLeftOut) break;
  }
  return { claimed, expired };
}
