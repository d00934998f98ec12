import fc from "fast-check";
import { describeFailure, jobCommands } from "@verq/core";
import { checkDecided, decideInOrder, jobsBefore, type DecidedItem } from "./check-decided.ts";
import { checkInvariants } from "./check-invariants.ts";
import { expectVerqError } from "./expect-verq-error.ts";
import type { JobsCommand } from "./jobs-command.ts";
import { JOB_IDS, type JobsModel } from "./jobs-model.ts";
import type { JobsReal } from "./jobs-real.ts";
import { modelEqual, modelFail } from "./model-assert.ts";
import { storeSnapshot } from "./store-snapshot.ts";

/** What the handlers of this model throw when they fail in a way whose effect is unknown. */
class UpstreamTimeout extends Error {
  readonly code = "ETIMEDOUT";
}

/**
 * J5: a failure whose effect is unknown is reported with `queue.fail(id, token, error)`: by a
 * worker for a claim it holds (`held`; it then forgets the claim, as a worker stops beating for a
 * job whose handler failed), or from outside with the job's current token plus `delta`. Accepted
 * exactly when the job is leased with that token: the job keeps its state, token, attempts, owner
 * and lease, and records the failure with its attempt and token. Any other report (`[stale fail]`)
 * is `false` and changes nothing: not the token, the state, the attempts, the lease or the last
 * failure. A token below 1 is `VERQ_INVALID_ARGUMENT`; an id never enqueued, or pruned,
 * `VERQ_UNKNOWN_JOB`; neither changes anything.
 */
export class FailCommand implements JobsCommand {
  constructor(
    readonly held: boolean,
    readonly pick: number,
    readonly id: string,
    readonly delta: number,
  ) {}

  static arbitrary(): fc.Arbitrary<JobsCommand> {
    return fc
      .record({
        // Mostly a worker's own claim, so that accepted reports are common; else a forged token.
        held: fc.constantFrom(true, true, true, false),
        pick: fc.nat({ max: 7 }),
        id: fc.constantFrom(...JOB_IDS),
        delta: fc.integer({ min: -1, max: 1 }),
      })
      .map((c) => new FailCommand(c.held, c.pick, c.id, c.delta));
  }

  check(): boolean {
    return true;
  }

  async run(m: JobsModel, r: JobsReal): Promise<void> {
    const claim = this.held && m.held.length > 0 ? m.held[this.pick % m.held.length] : undefined;
    if (claim !== undefined) m.forget(claim);
    const id = claim?.id ?? this.id;
    const job = m.jobs.get(id);
    const token = claim?.token ?? (job?.token ?? 0) + this.delta;
    const error = new UpstreamTimeout("upstream timed out");
    const failure = describeFailure(error, "unexpected");
    const jobs = await jobsBefore(r);
    const before = await storeSnapshot(r);
    const unknown = job === undefined || m.archive.has(id);
    if (unknown || token < 1) {
      const code = unknown ? "VERQ_UNKNOWN_JOB" : "VERQ_INVALID_ARGUMENT";
      await expectVerqError("J5 fail input", code, () => r.queue.fail(id, unknown ? Math.max(1, token) : token, error));
      modelEqual("J5 fail input", `a fail refused as ${code} changed the store`, await storeSnapshot(r), before);
    } else {
      const current = job.state === "leased" && job.token === token;
      const accepted = await r.queue.fail(id, token, error);
      const call = `fail(${id}, token ${token}); the job is ${job.state} with token ${job.token}`;
      if (accepted !== current) modelFail(current ? "J5 fail" : "stale fail", `${call} returned ${accepted}`);
      if (accepted) m.jobs.set(id, m.failed(job, failure));
      else modelEqual("stale fail", `a refused ${call} changed the store`, await storeSnapshot(r), before);
    }
    // An invalid token is refused before anything is decided; an unknown job is decided (and refused).
    const items: DecidedItem[] =
      !unknown && token < 1 ? [] : [{ id, command: () => jobCommands.fail({ token: Math.max(1, token), failure, now: m.now }) }];
    await checkDecided(r, "fail", jobs, decideInOrder(jobs, items));
    await checkInvariants(m, r);
  }

  toString(): string {
    const sign = this.delta < 0 ? "" : "+";
    return this.held
      ? `fail(held#${this.pick}, else ${this.id} current${sign}${this.delta})`
      : `fail(${this.id}, token=current${sign}${this.delta})`;
  }
}
