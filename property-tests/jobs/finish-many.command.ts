import fc from "fast-check";
import { checkDecided, decideInOrder, finishItem, jobsBefore } from "./check-decided.ts";
import type { FinishOutcome } from "@verq/core";
import { checkInvariants } from "./check-invariants.ts";
import { OUTCOMES } from "./finish.command.ts";
import type { JobsCommand } from "./jobs-command.ts";
import type { HeldClaim, JobsModel } from "./jobs-model.ts";
import type { JobsReal } from "./jobs-real.ts";
import { modelEqual, modelFail } from "./model-assert.ts";
import { storeSnapshot } from "./store-snapshot.ts";
import { expectVerqError } from "./expect-verq-error.ts";

/**
 * J4 in a batch: several held claims (the same one possibly twice) finish in one transaction.
 * Each must be judged as if the finishes ran one after another in input order: accepted
 * exactly when its job is then leased with its token, at most one accepted per (job, token),
 * and a batch where nothing is accepted leaves the store as it was. A batch that names a job
 * pruned since its claim throws `VERQ_UNKNOWN_JOB` and records none of its finishes.
 */
export class FinishManyCommand implements JobsCommand {
  constructor(readonly items: readonly { readonly pick: number; readonly outcome: FinishOutcome }[]) {}

  static arbitrary(): fc.Arbitrary<JobsCommand> {
    const item = fc.record({ pick: fc.nat({ max: 7 }), outcome: fc.constantFrom(...OUTCOMES) });
    return fc.array(item, { minLength: 1, maxLength: 4 }).map((items) => new FinishManyCommand(items));
  }

  check(m: Readonly<JobsModel>): boolean {
    return m.held.length > 0;
  }

  async run(m: JobsModel, r: JobsReal): Promise<void> {
    const claims: HeldClaim[] = this.items.map(({ pick }) => m.held[pick % m.held.length] ?? modelFail("model", "no held claim"));
    const finishes = claims.map((claim, i) => ({ id: claim.id, token: claim.token, outcome: this.items[i]?.outcome ?? "ok" }));
    for (const claim of new Set(claims)) m.forget(claim);
    const before = await storeSnapshot(r);
    const jobs = await jobsBefore(r);
    const decided = decideInOrder(
      jobs,
      finishes.map((finish) => finishItem(r, m.now, finish)),
    );
    const gone = finishes.find((f) => m.archive.has(f.id));
    if (gone !== undefined) {
      await expectVerqError("prune archived id", "VERQ_UNKNOWN_JOB", () => r.queue.finishMany(finishes));
      modelEqual(
        "prune archived id",
        `a finishMany naming archived ${gone.id} changed the store`,
        await storeSnapshot(r),
        before,
      );
      await checkInvariants(m, r);
      return;
    }
    const accepted = await r.queue.finishMany(finishes);
    const expected: boolean[] = [];
    for (const { id, token, outcome } of finishes) {
      const job = m.job(id);
      const current = job.state === "leased" && job.token === token;
      expected.push(current);
      if (!current) continue;
      const key = `${id}#${token}`;
      if (m.acceptedFinishes.has(key)) modelFail("c J4", `a second finish was accepted for ${key}`);
      m.acceptedFinishes.add(key);
      m.jobs.set(
        id,
        outcome === "ok"
          ? m.completed(job)
          : outcome === "permanent"
            ? m.died(job, "permanent")
            : m.retried(job, await r.queue.get(id)),
      );
    }
    modelEqual("J4 finishMany", `acceptance of ${JSON.stringify(finishes)}`, accepted, expected);
    if (!expected.includes(true)) {
      modelEqual("b J4", "a finishMany that accepted nothing changed the store", await storeSnapshot(r), before);
    }
    await checkDecided(r, "finishMany", jobs, decided);
    await checkInvariants(m, r);
  }

  toString(): string {
    return `finishMany(${this.items.map((i) => `held#${i.pick}:${i.outcome}`).join(", ")})`;
  }
}
