import type { FinishOutcome } from "@verq/core";
import type { JobsModel } from "./jobs-model.ts";
import type { JobsReal } from "./jobs-real.ts";
import { modelEqual, modelFail } from "./model-assert.ts";
import { storeSnapshot } from "./store-snapshot.ts";
import { expectVerqError } from "./expect-verq-error.ts";

/**
 * Finishes `id` with `token` and checks J4 against the model: accepted exactly when the job is
 * leased with that token; (b) otherwise `false` and the store unchanged; (c) at most one
 * accepted finish per (job, token). Updates the model with the accepted outcome. A job pruned
 * since the claim is gone: the finish is refused as for an id never enqueued (`VERQ_UNKNOWN_JOB`).
 */
export async function checkFinish(m: JobsModel, r: JobsReal, id: string, token: number, outcome: FinishOutcome): Promise<void> {
  if (m.archive.has(id)) {
    const before = await storeSnapshot(r);
    await expectVerqError("prune archived id", "VERQ_UNKNOWN_JOB", () => r.queue.finish(id, token, outcome));
    modelEqual("prune archived id", `a finish of archived ${id} changed the store`, await storeSnapshot(r), before);
    return;
  }
  const job = m.job(id);
  const current = job.state === "leased" && job.token === token;
  const before = await storeSnapshot(r);
  const accepted = await r.queue.finish(id, token, outcome);
  if (!current) {
    if (accepted) {
      modelFail(
        "b J4",
        `finish(${id}, token ${token}, ${outcome}) was accepted; the job is ${job.state} with token ${job.token}`,
      );
    }
    modelEqual("b J4", `a refused finish(${id}, token ${token}) changed the store`, await storeSnapshot(r), before);
    return;
  }
  if (!accepted) modelFail("J4 finish", `finish(${id}, current token ${token}, ${outcome}) was refused`);
  const key = `${id}#${token}`;
  if (m.acceptedFinishes.has(key)) modelFail("c J4", `a second finish was accepted for ${key}`);
  m.acceptedFinishes.add(key);
  const next =
    outcome === "ok"
      ? m.completed(job)
      : outcome === "permanent"
        ? m.died(job, "permanent")
        : m.retried(job, await r.queue.get(id));
  m.jobs.set(id, next);
}
