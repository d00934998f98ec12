import { jobCommands, type Clock, type JobCommand, type JobFailure } from "@verq/core";
import type { VerqStore } from "../../src/index.ts";
import { answer, handleJobs, jobContext } from "../../src/jobs/job-context.ts";

/**
 * Writes the facts of a job that carry its kind and its failures (an enqueue with a kind, a
 * `job.fail`, a finish that records what the attempt failed with) through the store's own
 * command path: each decided by the job machine and committed with its projection in one
 * transaction, exactly as the queue's services commit theirs. A refusal throws its coded error.
 */
export class JobFacts {
  readonly #store: VerqStore;
  readonly #clock: Clock;

  constructor(store: VerqStore, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
  }

  /** Enqueues a job of `kind` (none when absent), 3 attempts unless told. */
  async enqueue(input: {
    readonly id: string;
    readonly payload?: unknown;
    readonly kind?: string;
    readonly queue?: string;
    readonly maxAttempts?: number;
  }): Promise<void> {
    const now = this.#clock.now();
    await this.#decide(
      input.id,
      jobCommands.enqueue({
        payload: (input.payload ?? {}) as never,
        maxAttempts: input.maxAttempts ?? 3,
        deadline: now + 86_400_000,
        availableAt: now,
        orderingKey: null,
        queue: input.queue ?? "default",
        priority: 0,
        ...(input.kind === undefined ? {} : { kind: input.kind }),
        now,
      }),
    );
  }

  /** Records `failure` for the attempt that holds `token` (`job.failed`): the job stays leased. */
  async fail(id: string, token: number, failure: JobFailure): Promise<void> {
    await this.#decide(id, jobCommands.fail({ token, failure, now: this.#clock.now() }));
  }

  /** Finishes the attempt that holds `token` with `outcome`, recording `failure` (a retry is due after `retryDelayMs`). */
  async finish(id: string, token: number, outcome: "retry" | "permanent", failure: JobFailure, retryDelayMs = 0): Promise<void> {
    await this.#decide(id, jobCommands.finish({ token, outcome, retryDelayMs, failure, now: this.#clock.now() }));
  }

  async #decide(id: string, command: JobCommand): Promise<void> {
    const context = jobContext(this.#store, { clock: this.#clock });
    const accepted = await this.#store.transaction(async (trx) => {
      const [decided] = await handleJobs(context, trx, [{ id, commands: [command] }]);
      return decided !== undefined && answer(decided, command);
    });
    if (!accepted) throw new Error(`${command.type} of ${id} was refused`);
  }
}

/** A failure as a worker describes one: identifiers only. */
export const failure = (
  category: JobFailure["category"],
  errorClass: string,
  fields: { readonly code?: string; readonly status?: number } = {},
): JobFailure => ({ category, errorClass, code: fields.code ?? null, status: fields.status ?? null });
