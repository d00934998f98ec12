import { elapsedMs, type VerqLogger } from "../verq-logger.ts";
import type { ClaimedJob, LeaseExpiry } from "./claim-jobs.ts";
import { failureFields, heldKey, type JobWorkerResult } from "./job-worker-options.ts";

/**
 * What a `JobWorker` logs of its claims and outcomes, never a payload: each claim at debug,
 * each expired lease a claim took over at warn, each recorded outcome at info (at warn when
 * refused as stale) with the time from its claim to its record.
 */
export class WorkerJournal {
  readonly #log: VerqLogger;
  readonly #owner: string;
  /** When each held job was claimed, by {@link heldKey}. */
  readonly #claimedAt = new Map<string, number>();

  constructor(log: VerqLogger, owner: string) {
    this.#log = log;
    this.#owner = owner;
  }

  /** Logs what a round claimed, and the expired leases it took over. */
  claims(claimed: readonly ClaimedJob[], expired: readonly LeaseExpiry[]): void {
    const log = this.#log;
    const now = performance.now();
    for (const lost of expired) {
      log.warn(
        { id: lost.id, token: lost.token, owner: lost.owner, state: lost.state, by: this.#owner },
        lost.state === "leased"
          ? "lease expired; taken over by a new claim"
          : "lease expired on the last attempt; the job is dead",
      );
    }
    for (const job of claimed) {
      this.#claimedAt.set(heldKey(job.id, job.token), now);
      log.debug(
        {
          id: job.id,
          token: job.token,
          owner: job.owner,
          leaseUntil: job.leaseUntil,
          attempt: job.attempts,
          maxAttempts: job.maxAttempts,
        },
        "claimed",
      );
    }
  }

  /** Logs a recorded (or refused) outcome, with how long since its claim. */
  outcome(result: JobWorkerResult): void {
    const log = this.#log;
    const key = heldKey(result.id, result.token);
    const claimedAt = this.#claimedAt.get(key);
    this.#claimedAt.delete(key);
    // The handler's duration is `sendMs` here.
    const { failure, handlerMs, ...rest } = result;
    const fields = {
      ...rest,
      ...failureFields(failure),
      owner: this.#owner,
      sendMs: handlerMs,
      durationMs: claimedAt === undefined ? null : elapsedMs(claimedAt),
    };
    if (result.accepted) log.info(fields, "outcome recorded");
    else log.warn(fields, "stale finish refused: the lease was lost and another worker holds the job");
  }

  /** Forgets the claims of jobs that will never be recorded (a run that ended with them waiting). */
  forget(jobs: readonly ClaimedJob[]): void {
    for (const job of jobs) this.#claimedAt.delete(heldKey(job.id, job.token));
  }
}
