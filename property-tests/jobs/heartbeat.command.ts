import fc from "fast-check";
import { jobCommands } from "@verq/core";
import { checkDecided, decideInOrder, jobsBefore } from "./check-decided.ts";
import { checkInvariants } from "./check-invariants.ts";
import type { JobsCommand } from "./jobs-command.ts";
import type { JobsModel } from "./jobs-model.ts";
import type { JobsReal } from "./jobs-real.ts";
import { modelEqual, modelFail } from "./model-assert.ts";
import { storeSnapshot } from "./store-snapshot.ts";
import { expectVerqError } from "./expect-verq-error.ts";

/**
 * Lease renewal: a worker heartbeats a claim it holds. Accepted only while the job is leased
 * with that token and `now < leaseUntil` (an expired lease is not revived, even if nobody took it
 * over); a refusal returns `false` and changes nothing. The worker keeps its claim either way.
 * A job pruned since the claim is gone: `VERQ_UNKNOWN_JOB`, as for an id never enqueued.
 */
export class HeartbeatCommand implements JobsCommand {
  constructor(
    readonly pick: number,
    readonly leaseMs: number,
  ) {}

  static arbitrary(): fc.Arbitrary<JobsCommand> {
    return fc
      .record({ pick: fc.nat({ max: 7 }), leaseMs: fc.integer({ min: 1, max: 60 }) })
      .map((c) => new HeartbeatCommand(c.pick, c.leaseMs));
  }

  check(m: Readonly<JobsModel>): boolean {
    return m.held.length > 0;
  }

  async run(m: JobsModel, r: JobsReal): Promise<void> {
    const claim = m.held[this.pick % m.held.length];
    if (claim === undefined) throw new Error("HeartbeatCommand ran without a held claim");
    if (m.archive.has(claim.id)) {
      const before = await storeSnapshot(r);
      await expectVerqError("prune archived id", "VERQ_UNKNOWN_JOB", () =>
        r.queue.heartbeat(claim.id, claim.token, this.leaseMs),
      );
      modelEqual("prune archived id", `a heartbeat of archived ${claim.id} changed the store`, await storeSnapshot(r), before);
      await checkInvariants(m, r);
      return;
    }
    const job = m.job(claim.id);
    const held = job.state === "leased" && job.token === claim.token && job.leaseUntil !== null && m.now < job.leaseUntil;
    const before = await storeSnapshot(r);
    const jobs = await jobsBefore(r);
    const extended = await r.queue.heartbeat(claim.id, claim.token, this.leaseMs);
    const call = `heartbeat(${claim.id}, token ${claim.token}) at ${m.now}; job ${job.state}, token ${job.token}, lease until ${job.leaseUntil}`;
    if (extended !== held) modelFail("heartbeat", `${call} returned ${extended}`);
    if (extended) m.jobs.set(claim.id, m.heartbeated(job, this.leaseMs));
    else modelEqual("heartbeat", `refused ${call} changed the store`, await storeSnapshot(r), before);
    const command = jobCommands.heartbeat({ token: claim.token, leaseMs: this.leaseMs, now: m.now });
    await checkDecided(r, "heartbeat", jobs, decideInOrder(jobs, [{ id: claim.id, command: () => command }]));
    await checkInvariants(m, r);
  }

  toString(): string {
    return `heartbeat(held#${this.pick}, lease=${this.leaseMs})`;
  }
}
