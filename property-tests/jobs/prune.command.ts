import fc from "fast-check";
import type { Job, JobState } from "@verq/core";
import type { PruneResult } from "@verq/store";
import { checkInvariants } from "./check-invariants.ts";
import { checkStoreClean } from "./check-store-clean.ts";
import { jobEventCounts } from "./event-log.ts";
import type { JobsCommand } from "./jobs-command.ts";
import { byChange, type JobsModel } from "./jobs-model.ts";
import type { JobsReal } from "./jobs-real.ts";
import { modelEqual, modelFail } from "./model-assert.ts";
import { storeSnapshot } from "./store-snapshot.ts";

/**
 * A retention age: a fixed number of ms (0 prunes everything finished by now), or the exact age
 * of the `pick`-th finished job plus `offset` (-1, 0, +1), so that prunes land on the cutoff
 * itself, the millisecond before it and the one after.
 */
export type PruneAge = { readonly ms: number } | { readonly finished: number; readonly offset: -1 | 0 | 1 };

const age: fc.Arbitrary<PruneAge> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ ms: 0 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 300 }).map((ms) => ({ ms })) },
  { weight: 1, arbitrary: fc.constant({ ms: 1_000_000 }) },
  {
    weight: 4,
    arbitrary: fc
      .record({ finished: fc.nat({ max: 7 }), offset: fc.constantFrom(-1 as const, 0 as const, 1 as const) })
      .map((a): PruneAge => a),
  },
);

/**
 * Retention: prunes done jobs finished at least `doneOlderThan` ago (and dead ones dead at least
 * `deadOlderThan` ago, when given), in batches of `batchSize`, or only counts them (`dryRun`).
 * The property, checked in this order: no pending or leased job is ever removed (nor counted as
 * pruned by a dry run); exactly the jobs finished at or before their cutoff are removed (none
 * with a dry run, which changes nothing at all); the result's counts, cutoffs and batches are
 * the model's; each pruned job
 * has no events and no row left and an archive row with its final state, token and reason.
 * The model then forgets the pruned jobs and keeps their archive rows.
 */
export class PruneCommand implements JobsCommand {
  constructor(
    readonly doneAge: PruneAge,
    readonly deadAge: PruneAge | null,
    readonly batchSize: number,
    readonly dryRun: boolean,
  ) {}

  static arbitrary(): fc.Arbitrary<JobsCommand> {
    return fc
      .record({
        doneAge: age,
        deadAge: fc.option(age, { freq: 3 }),
        batchSize: fc.integer({ min: 1, max: 4 }),
        // Mostly for real: a dry run changes nothing, so it teaches the later commands nothing.
        dryRun: fc.oneof({ weight: 1, arbitrary: fc.constant(true) }, { weight: 3, arbitrary: fc.constant(false) }),
      })
      .map((c) => new PruneCommand(c.doneAge, c.deadAge, c.batchSize, c.dryRun));
  }

  check(): boolean {
    return true;
  }

  /** `age` in ms now: a finished job's age is counted from its last change (0 when nothing is finished). */
  ms(m: Readonly<JobsModel>, age: PruneAge): number {
    if ("ms" in age) return age.ms;
    const finished = [...m.jobs.values()].filter((j) => j.state === "done" || j.state === "dead").sort(byId);
    const job = finished[age.finished % Math.max(1, finished.length)];
    return job === undefined ? 0 : Math.max(0, m.now - job.updatedAt + age.offset);
  }

  async run(m: JobsModel, r: JobsReal): Promise<void> {
    const doneOlderThan = this.ms(m, this.doneAge);
    const deadOlderThan = this.deadAge === null ? null : this.ms(m, this.deadAge);
    const doneCutoff = m.now - doneOlderThan;
    const deadCutoff = deadOlderThan === null ? null : m.now - deadOlderThan;
    const expected = m.prunable(doneCutoff, deadCutoff);
    const before = await storeSnapshot(r);
    const result = await r.queue.prune({
      doneOlderThan,
      ...(deadOlderThan === null ? {} : { deadOlderThan }),
      batchSize: this.batchSize,
      dryRun: this.dryRun,
    });
    const call = `prune(done cutoff ${doneCutoff}, dead cutoff ${deadCutoff}) at ${m.now}`;
    const gone: string[] = [];
    for (const job of m.jobs.values()) {
      if ((await r.queue.get(job.id)) !== null) continue;
      if (job.state === "pending" || job.state === "leased")
        modelFail("prune unfinished", `${call} removed ${job.id}, which was ${job.state} (token ${job.token})`);
      gone.push(job.id);
    }
    const wantResult = this.result(m, expected, doneCutoff, deadCutoff);
    // A dry run removes nothing: its result must still count every pending and leased job as kept.
    const unfinished = (res: PruneResult) => ({ pending: res.kept.pending, leased: res.kept.leased });
    modelEqual("prune unfinished", `${call}: pending and leased jobs kept`, unfinished(result), unfinished(wantResult));
    const want = this.dryRun ? [] : expected.map((j) => j.id).sort();
    modelEqual("prune cutoff", `${call}: jobs removed (last changes: ${lastChanges(m)})`, gone.sort(), want);
    modelEqual("prune result", `${call}: result`, result, wantResult);
    if (this.dryRun) {
      modelEqual("prune dry run", `${call} with dryRun changed the store`, await storeSnapshot(r), before);
    } else {
      const counts = await jobEventCounts(
        r,
        expected.map((j) => j.id),
      );
      for (const job of expected) {
        if (counts.get(job.id) !== 0) modelFail("prune archive", `${job.id} was pruned but ${counts.get(job.id)} events remain`);
        const archived = m.archived(job);
        modelEqual("prune archive", `archive row of ${job.id}`, await r.queue.archived(job.id), archived);
        m.jobs.delete(job.id);
        m.archive.set(job.id, archived);
      }
      if (expected.length > 0) await checkStoreClean(r, "prune check");
    }
    await checkInvariants(m, r);
  }

  /** The {@link PruneResult} the model expects: counts of `pruned`, what was kept by state, and the batches that pruned. */
  result(m: Readonly<JobsModel>, pruned: readonly Job[], doneCutoff: number, deadCutoff: number | null): PruneResult {
    const scanCutoff = Math.max(doneCutoff, deadCutoff ?? Number.MIN_SAFE_INTEGER);
    const candidates = byChange([...m.jobs.values()].filter((j) => j.updatedAt <= scanCutoff));
    const ids = new Set(pruned.map((j) => j.id));
    const kept: Record<JobState, number> = { pending: 0, leased: 0, done: 0, dead: 0 };
    for (const job of candidates) if (!ids.has(job.id)) kept[job.state]++;
    // The scan reads finished jobs only, in batches of batchSize: a batch counts when it pruned one.
    const finished = candidates.filter((j) => j.state === "done" || j.state === "dead");
    let batches = 0;
    for (let from = 0; from < finished.length; from += this.batchSize) {
      if (finished.slice(from, from + this.batchSize).some((j) => ids.has(j.id))) batches++;
    }
    return {
      pruned: {
        done: pruned.filter((j) => j.state === "done").length,
        dead: pruned.filter((j) => j.state === "dead").length,
      },
      events: pruned.reduce((n, j) => n + j.version, 0),
      kept,
      batches: this.dryRun ? 0 : batches,
      dryRun: this.dryRun,
      doneCutoff,
      deadCutoff,
    };
  }

  toString(): string {
    const show = (a: PruneAge) => ("ms" in a ? `${a.ms}` : `age(finished#${a.finished})${a.offset < 0 ? "" : "+"}${a.offset}`);
    const dead = this.deadAge === null ? "" : `, dead>=${show(this.deadAge)}`;
    return `prune(done>=${show(this.doneAge)}${dead}, batch=${this.batchSize}${this.dryRun ? ", dry" : ""})`;
  }
}

function byId(a: Job, b: Job): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function lastChanges(m: Readonly<JobsModel>): string {
  return [...m.jobs.values()].map((j) => `${j.id} ${j.state}@${j.updatedAt}`).join(", ");
}
